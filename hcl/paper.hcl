# paper.hcl — the design of "Kill-Chain Canaries" (Wang & Zhang, 2026):
# five production models, 950 runs.
#
#   764 text-surface runs: the rows of the released log
#       (internal/importer/agentbench/testdata/paperlog/runs.csv) marked in_paper, regrouped as one grid per
#       (batch, repeats) group. Attacked runs use the "direct" variant; clean
#       controls use the plain condition. internal/study/paper_test.go checks this plan
#       against the CSV, batch × task × model × defense × attacked.
#   186 PDF-relay runs (batch pdf_relay_v1, attacked only; see below).
#
# Every batch name is the one in the released log. The hosted models need
# OPENAI_API_KEY, DEEPSEEK_API_KEY and ANTHROPIC_API_KEY in the environment.

study "paper" {
  seed        = 2026
  concurrency = 8
  output      = "runs/paper"
  sandbox     = "docker"
  max_turns   = 10
}

model "gpt-4o-mini" {
  provider    = "openai"
  name        = "gpt-4o-mini-2024-07-18"
  api_key_env = "OPENAI_API_KEY"
  temperature = 0
  max_tokens  = 2048
}

model "gpt-5-mini" {
  provider    = "openai"
  name        = "gpt-5-mini"
  api         = "responses"
  api_key_env = "OPENAI_API_KEY"
  # A reasoning model: the Responses API rejects temperature, so the driver
  # sends the reasoning effort instead; its reasoning summaries are the
  # hidden thinking, and its encrypted reasoning is carried between turns.
  thinking         = true
  reasoning_effort = "low"
  max_tokens       = 2048
}

model "deepseek-chat" {
  provider    = "deepseek"
  name        = "deepseek-chat"
  api_key_env = "DEEPSEEK_API_KEY"
  temperature = 0
  max_tokens  = 2048
}

model "claude-haiku-4-5" {
  provider    = "anthropic"
  name        = "claude-haiku-4-5"
  api_key_env = "ANTHROPIC_API_KEY"
  temperature = 0
  max_tokens  = 2048
}

model "claude-sonnet-4-5" {
  provider    = "anthropic"
  name        = "claude-sonnet-4-5"
  api_key_env = "ANTHROPIC_API_KEY"
  temperature = 0
  max_tokens  = 2048
}

# ---------------------------------------------------------------------------
# Text surfaces: 764 runs.
# ---------------------------------------------------------------------------

# 160 runs: four scenarios × five models, clean and attacked, 4 repeats.
grid "scenario_compare" {
  batch      = "scenario_compare_v1"
  tasks      = ["memory_poison", "tool_poison", "propagation", "permission_esc"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "gpt-5-mini", "deepseek-chat", "claude-haiku-4-5", "claude-sonnet-4-5"]
  conditions = ["plain", "hack"]
  repeats    = 4
}

# 160 runs: tool_poison and the text relay under every defense.
grid "defense_ablation" {
  batch      = "defense_ablation_v1"
  tasks      = ["tool_poison", "propagation"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "deepseek-chat"]
  conditions = ["plain", "hack"]
  defenses   = ["none", "write_filter", "pi_detector", "spotlighting", "all"]
  repeats    = 4
}

# 64 runs: write_filter against pre-seeded memory, which it never inspects.
grid "defense_positive_control" {
  batch      = "defense_positive_control_v1"
  tasks      = ["memory_poison"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "deepseek-chat"]
  conditions = ["plain", "hack"]
  defenses   = ["none", "write_filter"]
  repeats    = 8
}

# 24 runs: DeepSeek Chat on pre-seeded memory.
grid "deepseek_mempoison" {
  batch      = "deepseek_mempoison_v1"
  tasks      = ["memory_poison"]
  variants   = ["direct"]
  models     = ["deepseek-chat"]
  conditions = ["plain", "hack"]
  repeats    = 12
}

# 24 runs: GPT-5-mini in the text relay.
grid "gpt5mini_propagation" {
  batch      = "gpt5mini_propagation_v1"
  tasks      = ["propagation"]
  variants   = ["direct"]
  models     = ["gpt-5-mini"]
  conditions = ["plain", "hack"]
  repeats    = 12
}

# 48 runs: the permission-escalation replication.
grid "perm_esc_replication" {
  batch      = "perm_esc_replication_v1"
  tasks      = ["permission_esc"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "deepseek-chat"]
  conditions = ["plain", "hack"]
  repeats    = 12
}

# 252 runs: the high-n batch, attacked only, in four repeat groups.
grid "high_n_claude" {
  batch      = "high_n_v1"
  tasks      = ["memory_poison", "tool_poison", "propagation", "permission_esc"]
  variants   = ["direct"]
  models     = ["claude-haiku-4-5", "claude-sonnet-4-5"]
  conditions = ["hack"]
  repeats    = 16
}

grid "high_n_gpt5mini" {
  batch      = "high_n_v1"
  tasks      = ["memory_poison", "tool_poison", "permission_esc"]
  variants   = ["direct"]
  models     = ["gpt-5-mini"]
  conditions = ["hack"]
  repeats    = 32
}

grid "high_n_gpt5mini_propagation" {
  batch      = "high_n_v1"
  tasks      = ["propagation"]
  variants   = ["direct"]
  models     = ["gpt-5-mini"]
  conditions = ["hack"]
  repeats    = 4
}

grid "high_n_perm_esc" {
  batch      = "high_n_v1"
  tasks      = ["permission_esc"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "deepseek-chat"]
  conditions = ["hack"]
  repeats    = 12
}

# 32 runs: payloads in a web page and in memory at once.
grid "multi_surface" {
  batch      = "multi_surface_v1"
  tasks      = ["multi_surface"]
  variants   = ["direct"]
  models     = ["gpt-4o-mini", "claude-sonnet-4-5"]
  conditions = ["plain", "hack"]
  repeats    = 4
}

grid "multi_surface_gpt5mini" {
  batch      = "multi_surface_v1"
  tasks      = ["multi_surface"]
  variants   = ["direct"]
  models     = ["gpt-5-mini"]
  conditions = ["plain", "hack"]
  repeats    = 8
}

# ---------------------------------------------------------------------------
# PDF relay: 186 runs, attacked only, 3 repeats per cell.
#
# The released data has no per-cell list for these runs (pdf_relay_cells.csv
# holds only the no-defense cells), so this cell split is derived from the
# paper's counts: 138 same-model runs (46 cells of 3, GPT-5-mini's 18 among
# them) and 48 cross-model runs (16 cells of 3).
# ---------------------------------------------------------------------------

# 120 runs: four models as writer and reader, two PDF boundaries, every defense.
grid "pdf_same_model" {
  batch      = "pdf_relay_v1"
  tasks      = ["cross_modal_relay"]
  variants   = ["pdf_append", "pdf_whitefont"]
  models     = ["gpt-4o-mini", "deepseek-chat", "claude-haiku-4-5", "claude-sonnet-4-5"]
  conditions = ["hack"]
  defenses   = ["none", "write_filter", "pi_detector", "spotlighting", "all"]
  repeats    = 3
}

# 18 runs: GPT-5-mini as writer and reader.
grid "pdf_same_model_gpt5mini" {
  batch      = "pdf_relay_v1"
  tasks      = ["cross_modal_relay"]
  variants   = ["pdf_append", "pdf_whitefont"]
  models     = ["gpt-5-mini"]
  conditions = ["hack"]
  defenses   = ["none", "write_filter", "pi_detector"]
  repeats    = 3
}

# 36 runs: every ordered cross-model pair of the four models, visible append.
grid "pdf_cross_model_append" {
  batch    = "pdf_relay_v1"
  tasks    = ["cross_modal_relay"]
  variants = ["pdf_append"]
  pairs = [
    ["gpt-4o-mini", "deepseek-chat"],
    ["gpt-4o-mini", "claude-haiku-4-5"],
    ["gpt-4o-mini", "claude-sonnet-4-5"],
    ["deepseek-chat", "gpt-4o-mini"],
    ["deepseek-chat", "claude-haiku-4-5"],
    ["deepseek-chat", "claude-sonnet-4-5"],
    ["claude-haiku-4-5", "gpt-4o-mini"],
    ["claude-haiku-4-5", "deepseek-chat"],
    ["claude-haiku-4-5", "claude-sonnet-4-5"],
    ["claude-sonnet-4-5", "gpt-4o-mini"],
    ["claude-sonnet-4-5", "deepseek-chat"],
    ["claude-sonnet-4-5", "claude-haiku-4-5"],
  ]
  conditions = ["hack"]
  repeats    = 3
}

# 12 runs: four cross-model pairs with 1-pt white text.
grid "pdf_cross_model_whitefont" {
  batch    = "pdf_relay_v1"
  tasks    = ["cross_modal_relay"]
  variants = ["pdf_whitefont"]
  pairs = [
    ["gpt-4o-mini", "claude-haiku-4-5"],
    ["gpt-4o-mini", "deepseek-chat"],
    ["claude-haiku-4-5", "gpt-4o-mini"],
    ["deepseek-chat", "gpt-4o-mini"],
  ]
  conditions = ["hack"]
  repeats    = 3
}
