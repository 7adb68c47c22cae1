package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/probes/probescli"
	"github.com/killchain/killchain/sandbox/docker"
)

func init() {
	extraCommands = append(extraCommands, newImagesCmd, newSandboxCmd, newBenchCmd)
}

func newImagesCmd(g *globals) *cobra.Command {
	imagesCmd := &cobra.Command{
		Use:   "images",
		Short: "Build the sandbox images (offline, through the Docker API)",
	}
	imagesCmd.AddCommand(&cobra.Command{
		Use:   "build",
		Short: "Build every sandbox image that is missing",
		Long: `build makes the images runs need, without pulling anything: the toolbox image
(FROM scratch, a static binary) and the Debian-based image for audio
(espeak-ng, pocketsphinx, pdftotext), whose base is debian:bookworm-slim where
it can be pulled, otherwise a debootstrap root filesystem imported into Docker.
Images are tagged by a content hash; an image already built is kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			built, err := images.EnsureAll(cmd.Context(), g.stderr)
			if err != nil {
				return err
			}
			names := make([]string, 0, len(built))
			for n := range built {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(g.stdout, "%-10s %s %s\n", n, built[n].Ref, built[n].ID)
			}
			return nil
		},
	})
	imagesCmd.AddCommand(&cobra.Command{
		Use:   "save FILE [NAME…]",
		Short: "Write the sandbox images (built first when missing) to a tar archive",
		Long: `save writes the sandbox images runs need (or only the NAMEd ones, with the
images they are built from) to FILE in docker save's format. A CI job caches
FILE keyed on the image build inputs and restores it with images load instead
of rebuilding; see the README's GitHub Actions example.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cli, err := images.NewClient()
			if err != nil {
				return err
			}
			defer cli.Close()
			saved, err := images.Save(cmd.Context(), cli, args[0], args[1:], g.stderr)
			if err != nil {
				return err
			}
			for _, b := range saved {
				fmt.Fprintf(g.stdout, "saved %-12s %s\n", b.Name, b.Ref)
			}
			fmt.Fprintf(g.stdout, "wrote %s\n", args[0])
			return nil
		},
	}, &cobra.Command{
		Use:   "load FILE",
		Short: "Load sandbox images from a tar archive written by images save",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cli, err := images.NewClient()
			if err != nil {
				return err
			}
			defer cli.Close()
			return images.Load(cmd.Context(), cli, args[0], g.stdout)
		},
	})
	return imagesCmd
}

func newSandboxCmd(g *globals) *cobra.Command {
	sb := &cobra.Command{
		Use:   "sandbox",
		Short: "Manage sandbox containers and pods",
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
images are kept; they are reused while the task is unchanged.

With --kubernetes (or --kubeconfig / --context) it also removes, in the
cluster, every pod labelled killchain.run and every namespace killchain
created (labelled app.kubernetes.io/managed-by=killchain), with their quotas
and network policies; --namespace also looks in a namespace killchain did not
create (it is kept).`,
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
					fmt.Fprintf(g.stdout, "docker: removed %d containers and %d volumes\n", len(rep.Containers), len(rep.Volumes))
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
			fmt.Fprintf(g.stdout, "kubernetes: removed %d pods and %d namespaces\n", len(rep.Pods), len(rep.Namespaces))
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

func newBenchCmd(g *globals) *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Measure killchain on this machine",
	}
	var (
		asJSON  bool
		runs    int
		backend string
		kube    kubeFlags
	)
	sbx := &cobra.Command{
		Use:   "sandbox [--backend docker|kubernetes]",
		Short: "Measure the per-run sandbox lifecycle and tool-call round trip",
		Long: `sandbox measures, in one run on this machine, the raw lifecycle of the
toolbox image (create → start → wait → remove, as docker run --rm does) against
killchain's per-run lifecycle (from snapshot → plant → 3 tool calls → read
state → remove), at concurrency 1 and 8, as runs per second and their ratio;
and the round trip of a tool call inside a running sandbox (median and p99).

With --backend kubernetes it measures killchain's lifecycle on Docker and on
the cluster side by side instead (alternating rounds, same runs), with each
one's tool-call round trip: the cluster comes from --kubeconfig/--context (or
KUBECONFIG), snapshot images go to --registry (pinned by digest) or through
--import-command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var res interface{ WriteText(io.Writer) }
			switch backend {
			case "docker":
				r, err := docker.Bench(cmd.Context(), docker.BenchOptions{Runs: runs, Options: docker.Options{Logger: g.logger()}})
				if err != nil {
					return err
				}
				res = r
			case "kubernetes":
				r, err := kube.bench(cmd.Context(), g, runs)
				if err != nil {
					return err
				}
				res = r
			default:
				return fmt.Errorf("--backend %q: want docker or kubernetes", backend)
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			res.WriteText(g.stdout)
			return nil
		},
	}
	sbx.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	sbx.Flags().IntVar(&runs, "runs", 24, "lifecycles measured per kind and concurrency")
	sbx.Flags().StringVar(&backend, "backend", "docker", `"docker", or "kubernetes" to measure the cluster beside Docker`)
	kube.register(sbx, true)
	bench.AddCommand(sbx, newBenchReportCmd(g), probescli.BenchCommand())
	return bench
}
