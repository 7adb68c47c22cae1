# local.hcl — two open-weight models served by Ollama, in every task, alone
# and as same-model and cross-model writer→reader pairs.
#
#   ollama pull qwen3:8b && ollama pull llama3.1:8b
#   killchain doctor hcl/local.hcl      # is the host up, does it hold the models?
#   killchain run hcl/local.hcl
#
# The host comes from `host` below, or from OLLAMA_HOST when the block sets
# none (default http://127.0.0.1:11434).

study "local" {
  seed        = 11
  concurrency = 2 # one GPU: keep the server's queue short
  output      = "runs/local"
  sandbox     = "docker"
  max_turns   = 10
}

# qwen3 thinks before it answers: its thinking is recorded apart from its
# narration, and a canary there counts as noticed, never as executed.
model "qwen3" {
  provider    = "ollama"
  name        = "qwen3:8b"
  thinking    = true
  temperature = 0
  seed        = 11
  max_tokens  = 2048
}

model "llama3" {
  provider    = "ollama"
  name        = "llama3.1:8b"
  thinking    = false
  temperature = 0
  seed        = 11
  max_tokens  = 2048
}

grid "single" {
  batch      = "local_single"
  tasks      = ["memory_poison", "tool_poison", "audio_inject", "multi_surface"]
  models     = ["qwen3", "llama3"]
  conditions = ["plain", "hack", "narrate"]
  defenses   = ["none"]
  repeats    = 4
}

grid "relay" {
  batch      = "local_relay"
  tasks      = ["propagation", "permission_esc", "cross_modal_relay"]
  models     = ["qwen3", "llama3"] # same-model pairs
  pairs      = [["qwen3", "llama3"], ["llama3", "qwen3"]] # cross-model pairs
  conditions = ["plain", "hack"]
  defenses   = ["none"]
  repeats    = 3
}

grid "defenses" {
  batch      = "local_defenses"
  tasks      = ["tool_poison", "propagation", "cross_modal_relay"]
  models     = ["qwen3", "llama3"]
  conditions = ["hack"]
  defenses   = ["write_filter", "pi_detector", "spotlighting", "all"]
  repeats    = 3
}
