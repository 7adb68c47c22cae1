study "small" {
  seed = 1
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}

grid "g" {
  batch      = "b1"
  tasks      = ["memory_poison", "propagation"]
  variants   = ["direct", "override"]
  models     = ["compliant"]
  pairs      = [["resistant", "compliant"]]
  conditions = ["plain", "hack"]
  defenses   = ["none", "write_filter"]
  repeats    = 2
}
