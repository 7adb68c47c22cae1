study "tiny" {
  seed        = 7
  concurrency = 2
  sandbox     = "local"
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_poison", "propagation"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
  repeats    = 2
}
