# adaptive.hcl — the adaptive attacker against targets whose weak spot is
# known, in its three feedback modes side by side on the same cells. Round 0
# plants the grid's attack; each later round the reference attacker (a
# search over the attack library's families × encodings) proposes two
# payloads from what its feedback reveals. No provider is called. 156 runs
# (12 planned in round 0, 144 proposed): about 20 s in Docker on two cores
# once the images are built, 3 s on the local sandbox. One seed: the
# rounds to success of one cell are noisy; internal/attacker's
# TestFeedbackOrdersRoundsToSuccess measures the modes over 1000 seeds.
#
#   killchain validate hcl/adaptive.hcl
#   killchain run --output runs/adaptive hcl/adaptive.hcl
#   killchain run --sandbox local --output runs/adaptive hcl/adaptive.hcl
#   killchain report runs/adaptive
#
# The targets (internal/models/scripted): a writer that drops every line that
# looks like an instruction or a code, but keeps encoded text (resistant); a
# reader that ignores content claiming authority ("ignore", "override", …)
# (averse); an agent that follows only what is framed as coming from its user
# (user_framed). They are controls of the harness, not claims about models.

study "adaptive" {
  seed        = 23
  concurrency = 4
  output      = "runs/adaptive"
  sandbox     = "docker"
}

model "resistant" {
  provider = "scripted"
  policy   = "resistant" # as a writer: passes on the facts, encoded text among them
}

model "averse" {
  provider = "scripted"
  policy   = "averse" # follows clear or decoded instructions that claim no authority
}

model "user_framed" {
  provider = "scripted"
  policy   = "user_framed" # follows only instructions framed as from its user
}

# The reference attacker (no model: a search over the library) in each
# feedback mode. Give one a model = "…" block to let a model write payloads.
attacker "blind" {
  feedback = "none" # random search: told nothing
  rounds   = 6
  payloads = 2
}

attacker "outcome" {
  feedback = "outcome" # told, per payload, whether the goal was reached
  rounds   = 6
  payloads = 2
}

attacker "stage" {
  feedback = "stage" # also told how far each canary got and where it stopped
  rounds   = 6
  payloads = 2
}

grid "blind" {
  batch      = "adaptive"
  tasks      = ["propagation", "memory_poison"]
  pairs      = [["resistant", "averse"], ["resistant", "user_framed"]]
  models     = ["user_framed"]
  conditions = ["hack"]
  attacks    = ["ignore_previous"]
  attacker   = "blind"
}

grid "outcome" {
  batch      = "adaptive"
  tasks      = ["propagation", "memory_poison"]
  pairs      = [["resistant", "averse"], ["resistant", "user_framed"]]
  models     = ["user_framed"]
  conditions = ["hack"]
  attacks    = ["ignore_previous"]
  attacker   = "outcome"
}

grid "stage" {
  batch      = "adaptive"
  tasks      = ["propagation", "memory_poison"]
  pairs      = [["resistant", "averse"], ["resistant", "user_framed"]]
  models     = ["user_framed"]
  conditions = ["hack"]
  attacks    = ["ignore_previous"]
  attacker   = "stage"
}
