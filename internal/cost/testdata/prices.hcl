price "gpt-4o-mini-2024-07-18" {
  input        = 0.15
  cached_input = 0.075
  output       = 0.60
}

price "local" {
  input     = 1
  output    = 2
  reasoning = 3
}
