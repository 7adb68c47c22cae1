package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/kubernetes"
)

func newSandboxCmd(g *globals) *cobra.Command {
	sb := &cobra.Command{
		Use:   "sandbox",
		Short: "Manage sandbox containers and pods",
		Long: `sandbox looks after what the sandbox backends leave behind: Docker containers
and volumes, and Kubernetes pods and namespaces, all labelled killchain.run.`,
		Example: `  killchain sandbox gc
  killchain sandbox gc --study smoke --kubernetes`,
	}
	var (
		studyName string
		kube      kubeFlags
	)
	gc := &cobra.Command{
		Use:   "gc [--study NAME] [--kubernetes]",
		Short: "Remove sandbox containers, volumes and pods left by a crashed or killed study",
		Long: `gc removes every container and volume labelled killchain.run (or, with
--study, only those of one study). Run it when no study is running. Snapshot
images are kept; they are reused while the task is unchanged. It prints what
it removed on stdout.

With --kubernetes (or --kubeconfig / --context) it also removes, in the
cluster, every pod labelled killchain.run and every namespace killchain
created (labelled app.kubernetes.io/managed-by=killchain), with their quotas
and network policies; --namespace also looks in a namespace killchain did not
create (it is kept).`,
		Example: `  killchain sandbox gc
  killchain sandbox gc --study smoke
  killchain sandbox gc --kubernetes --context kind-killchain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cli, err := images.NewClient()
			if err == nil {
				defer cli.Close()
				var opts []docker.GCOption
				if studyName != "" {
					opts = append(opts, docker.GCStudy(studyName))
				}
				var rep docker.GCReport
				rep, err = docker.GC(ctx, cli, opts...)
				if err == nil {
					fmt.Fprintf(g.stdout, "docker: removed %s and %s\n",
						plural.Count(len(rep.Containers), "container"), plural.Count(len(rep.Volumes), "volume"))
				}
			}
			if err != nil {
				if !kube.wanted() {
					return fmt.Errorf("docker: %w", err)
				}
				fmt.Fprintf(g.stderr, "killchain: docker: %v\n", err)
			}
			if !kube.wanted() {
				return nil
			}
			rep, kerr := kube.gc(ctx, studyName)
			if kerr != nil {
				return kerr
			}
			fmt.Fprintf(g.stdout, "kubernetes: removed %s and %s\n",
				plural.Count(len(rep.Pods), "pod"), plural.Count(len(rep.Namespaces), "namespace"))
			if err != nil {
				return errSilent
			}
			return nil
		},
	}
	gc.Flags().StringVar(&studyName, "study", "", "only the containers and pods of this study")
	kube.register(gc, false)
	sb.AddCommand(gc)
	return sb
}

// gc removes the cluster's sandbox pods and the namespaces killchain made.
func (k *kubeFlags) gc(ctx context.Context, studyName string) (kubernetes.GCReport, error) {
	cs, err := kubernetes.Connect(k.kubeconfig, k.context)
	if err != nil {
		return kubernetes.GCReport{}, fmt.Errorf("kubernetes: %w", err)
	}
	var opts []kubernetes.GCOption
	if studyName != "" {
		opts = append(opts, kubernetes.GCStudy(studyName))
	}
	if k.namespace != "" {
		opts = append(opts, kubernetes.GCNamespace(k.namespace))
	}
	return kubernetes.GC(ctx, cs, opts...)
}
