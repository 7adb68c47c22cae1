package cli

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/images"
)

func newImagesCmd(g *globals) *cobra.Command {
	imagesCmd := &cobra.Command{
		Use:   "images",
		Short: "Build, save and load the sandbox images (offline, through the Docker API)",
		Long: `images makes the Docker images the sandboxes run, without pulling anything, and
moves them between machines as tar archives (docs/sandbox.md). It talks to the
Docker daemon of DOCKER_HOST (or the local socket).`,
		Example: `  killchain images build
  killchain images save /tmp/killchain-images.tar
  killchain images load /tmp/killchain-images.tar`,
	}
	imagesCmd.AddCommand(&cobra.Command{
		Use:   "build",
		Short: "Build every sandbox image that is missing",
		Long: `build makes the images runs need, without pulling anything: the toolbox image
(FROM scratch, a static binary) and the Debian-based image for audio
(espeak-ng, pocketsphinx, pdftotext), whose base is debian:bookworm-slim where
it can be pulled, otherwise a debootstrap root filesystem imported into Docker.
Images are tagged by a content hash; an image already built is kept.

It prints one line per image on stdout (name, tag and image id) and the build's
progress on stderr.`,
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
of rebuilding; docs/ci-gates.md has a GitHub Actions example.`,
		Example: `  killchain images save images.tar
  killchain images save toolbox.tar toolbox`,
		Args: argsBetween(1, -1),
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
		Long: `load reads FILE, an archive written by images save, into the Docker daemon and
prints the daemon's messages ("Loaded image: …") on stdout.`,
		Example: `  killchain images load images.tar`,
		Args:    argsBetween(1, 1),
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
