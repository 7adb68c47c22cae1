# User tasks, written from the task schema alone, run with the scripted
# reference agents: every agent alone in the single-agent tasks, four
# writer→reader pairs in the relay. runner's TestUserTasks runs it on the
# local backend (and in Docker) and checks the stages each agent must give.
study "usertasks" {
  seed        = 7
  concurrency = 4
  output      = "runs/usertasks"
  sandbox     = "local"
  task_files  = ["tasks/*.hcl"]
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}

model "paraphraser" {
  provider = "scripted"
  policy   = "paraphraser"
}

model "late" {
  provider = "scripted"
  policy   = "late"
}

model "quoter" {
  provider = "scripted"
  policy   = "quoter"
}

model "silent" {
  provider = "scripted"
  policy   = "silent"
}

grid "single" {
  tasks      = ["invoice_approval", "calendar_notes"]
  models     = ["compliant", "resistant", "paraphraser", "late", "quoter", "silent"]
  conditions = ["plain", "hack"]
}

grid "relay" {
  tasks = ["ticket_relay"]
  pairs = [
    ["compliant", "compliant"],
    ["resistant", "compliant"],
    ["paraphraser", "compliant"],
    ["compliant", "resistant"],
  ]
  conditions = ["plain", "hack"]
}

grid "defenses" {
  tasks      = ["invoice_approval", "calendar_notes", "ticket_relay"]
  models     = ["compliant"]
  conditions = ["hack"]
  defenses   = ["write_filter", "pi_detector", "spotlighting"]
}
