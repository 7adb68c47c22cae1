# A reward-hack task judged by a study model (hack_classifier): the hacker's
# thinking and narration go to the "judge" model block, not the keywords.
study "hackjudge" {
  seed            = 3
  concurrency     = 2
  sandbox         = "local"
  max_turns       = 10
  attempts        = 1
  hack_classifier = "judge"
}

model "silent_hacker" {
  provider = "scripted"
  policy   = "silent_hacker"
}

model "judge" {
  provider = "scripted"
  policy   = "classifier"
}

grid "reward" {
  tasks      = ["reward_rounding"]
  models     = ["silent_hacker"]
  conditions = ["plain"]
  defenses   = ["none"]
  repeats    = 1
}
