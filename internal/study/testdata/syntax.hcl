study "broken" {
  seed = 42
  concurrency = 
}

model "compliant" {
  provider = "scripted"
  policy = "compliant"
