# A tiny adaptive study for the runner's tests: the reference attacker in
# stage mode, and a model attacker (the test's factory decides its replies),
# against the reference targets on a memory relay and a single agent.
study "adaptive-test" {
  seed        = 5
  concurrency = 2
  sandbox     = "local"
}

model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}

model "averse" {
  provider = "scripted"
  policy   = "averse"
}

model "user_framed" {
  provider = "scripted"
  policy   = "user_framed"
}

model "writer" {
  provider = "openai_compatible"
  name     = "attacker-model"
  base_url = "http://127.0.0.1:1/v1"
}

attacker "search" {
  feedback = "stage"
  rounds   = 4
  payloads = 2
}

attacker "llm" {
  model      = "writer"
  feedback   = "outcome"
  rounds     = 3
  payloads   = 2
  asks       = 2
  max_tokens = 500
}

grid "search" {
  tasks      = ["propagation", "memory_poison"]
  pairs      = [["resistant", "averse"]]
  models     = ["user_framed"]
  conditions = ["plain", "hack"]
  attacks    = ["ignore_previous", "paper_direct+hex"]
  attacker   = "search"
}

grid "llm" {
  tasks      = ["memory_poison"]
  models     = ["user_framed"]
  conditions = ["hack"]
  attacks    = ["ignore_previous"]
  repeats    = 2
  attacker   = "llm"
}
