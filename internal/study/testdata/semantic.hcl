# Every block here holds at least one mistake; validate reports them all.
study "semantic" {
  concurrency = 0
  sandbox     = "vm"
  runtime     = "kata"
}

study "second" {
}

model "compliant" {
  provider = "scripted"
  policy   = "obedient"
}

model "gpt" {
  provider = "openai"
  api      = "graphql"
  timeout  = "a while"
}

model "compliant" {
  provider = "scripted"
  policy   = "late"
}

condition "plain" {
  payload = false
}

defense "filter" {
  kind     = "write_filter"
  patterns = ["(unclosed"]
  datamark = true
}

grid "main" {
  tasks      = ["memory_poison", "cross_modal_relay", "teleport"]
  variants   = ["direct"]
  models     = ["compliant", "ghost"]
  pairs      = [["compliant"], ["compliant", "gpt"]]
  conditions = ["plain", "shout"]
  defenses   = ["none", "moat"]
  repeats    = -1
}

grid "main" {
  tasks      = ["tool_poison"]
  models     = ["compliant"]
  conditions = ["hack"]
  repeats    = 0
}
