# crash.hcl — a small scripted study that TestKillAndResume kills and resumes.
study "crash" {
  seed        = 11
  concurrency = 4
  sandbox     = "local"
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
  tasks      = ["memory_poison", "tool_poison", "propagation"]
  models     = ["compliant", "resistant"]
  conditions = ["plain", "hack"]
  repeats    = 2
}
