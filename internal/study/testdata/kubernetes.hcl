# A kubernetes block with a mistake in each attribute it checks.
study "kube" {
  sandbox = "kubernetes"
  kubernetes {
    namespace        = "Not_A_Namespace"
    images           = "registry"
    schedule_timeout = "soon"
    cpu_request      = 0
  }
}

model "a" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_poison"]
  conditions = ["plain"]
  models     = ["a"]
}
