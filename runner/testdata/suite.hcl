# The reference agents for the suite tests (suite_test.go): the grid here
# is replaced by one over the Go-built suite of tasks/suitetest.
study "suite" {
  seed        = 11
  concurrency = 4
  sandbox     = "local"
}

model "oracle" {
  provider = "scripted"
  policy   = "oracle"
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}
model "late" {
  provider = "scripted"
  policy   = "late"
}
model "paraphraser" {
  provider = "scripted"
  policy   = "paraphraser"
}
model "quoter" {
  provider = "scripted"
  policy   = "quoter"
}
model "silent" {
  provider = "scripted"
  policy   = "silent"
}
model "literal" {
  provider = "scripted"
  policy   = "literal"
}
model "decoder" {
  provider = "scripted"
  policy   = "decoder"
}

grid "placeholder" {
  tasks      = ["memory_poison"]
  models     = ["compliant"]
  conditions = ["plain"]
}
