package cli

import "github.com/spf13/cobra"

// kubeFlags are the cluster flags of sandbox gc and bench sandbox.
type kubeFlags struct {
	on            bool
	kubeconfig    string
	context       string
	namespace     string
	registry      string
	importCommand string
	runtimeClass  string
}

// register adds the flags to cmd; images adds those that say how
// snapshot images reach the nodes (bench), else --kubernetes (gc).
func (k *kubeFlags) register(cmd *cobra.Command, images bool) {
	if !images {
		cmd.Flags().BoolVar(&k.on, "kubernetes", false, "also clean the cluster (KUBECONFIG, ~/.kube/config or in-cluster)")
	}
	cmd.Flags().StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&k.context, "context", "", "kubeconfig context (default: the current one)")
	cmd.Flags().StringVar(&k.namespace, "namespace", "", "namespace of the pods (default: one per study, killchain-<study>)")
	if images {
		cmd.Flags().StringVar(&k.registry, "registry", "", "registry prefix snapshot images are pushed to (host:port/prefix)")
		cmd.Flags().StringVar(&k.importCommand, "import-command", "", "command that loads an image archive on stdin into the nodes, instead of a registry")
		cmd.Flags().StringVar(&k.runtimeClass, "runtime-class", "", "RuntimeClass of the pods (e.g. gvisor)")
	}
}

// wanted reports whether the flags ask for the cluster at all.
func (k *kubeFlags) wanted() bool { return k.on || k.kubeconfig != "" || k.context != "" }
