model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_poison"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
