package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/moby/moby/client"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/models"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/probes/probescli"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor [FILE]",
		Short: "Check that Docker and the study's models can be reached, and say what to do about each gap",
		Long: `doctor reports whether the Docker daemon answers, which providers have
credentials in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
DEEPSEEK_API_KEY, or a model block's api_key_env; keys are never printed),
whether each Ollama host answers and holds the models the study names
(/api/tags), and whether OpenAI-compatible servers answer (GET /models).
Given a study on the kubernetes sandbox, it checks that the cluster answers
(the kubeconfig and context it uses) and says how snapshot images will reach
the nodes.

Given a study FILE, it exits 1 when any model the study needs cannot be
reached (or its cluster), and warns (without failing) about models whose
max_tokens leaves too little room beside their thinking and about hosted
models without a price (docs/cost.md). Hosted providers must list the
model (GET /models; Anthropic's /v1/models) with the key given, and an
api_key_env that names an unset variable fails. Without one, it
checks Docker and every provider's credentials. It prints one line per check
on stdout (CHECK, STATUS, DETAIL) and writes nothing.
`,
		Example: `  killchain doctor
  killchain doctor hcl/local.hcl`,
		Args: argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CHECK\tSTATUS\tDETAIL")
			bad := false
			dockerOK, dockerDetail := checkDocker(ctx)
			fmt.Fprintf(tw, "docker\t%s\t%s\n", status(dockerOK), dockerDetail)
			var cfgs []models.Config
			studyNeeds := false
			var s *study.Study
			if len(args) == 1 {
				var ok bool
				s, ok = study.LoadAndReport(args[0], g.stderr)
				if !ok {
					return errSilent
				}
				cfgs = liveConfigs(s)
				studyNeeds = true
				if s.Sandbox != "local" && !dockerOK {
					bad = true
				}
				if s.Sandbox == "kubernetes" {
					ok, detail := checkKube(ctx, s)
					fmt.Fprintf(tw, "kubernetes\t%s\t%s\n", status(ok), detail)
					bad = bad || !ok
				}
				if len(cfgs) == 0 {
					fmt.Fprintf(tw, "models\tok\tstudy %s uses scripted reference agents only\n", s.Name)
				}
			} else {
				for _, p := range []string{models.OpenAI, models.Anthropic, models.DeepSeek} {
					cfgs = append(cfgs, models.Config{Name: p, Provider: p})
				}
			}
			reachable := 0
			for i, f := range models.Doctor(ctx, cfgs) {
				detail := "reachable"
				if f.OK {
					reachable++
				} else {
					detail = f.Problem + " — " + f.Advice
					if studyNeeds {
						bad = true
					} else {
						detail = fmt.Sprintf("%s — export %s to use %s models", f.Problem, cfgs[i].KeyEnv(), cfgs[i].Provider)
					}
				}
				name := "model " + f.Model
				if !studyNeeds {
					name = "provider " + cfgs[i].Provider
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, status(f.OK), detail)
			}
			if studyNeeds {
				// Warnings, not failures: the study can run.
				for _, c := range cfgs {
					if w := models.TokenWarning(c); w != "" {
						fmt.Fprintf(tw, "model %s\twarning\t%s\n", c.Name, strings.TrimPrefix(w, "model "+c.Name+": "))
					}
				}
				for _, w := range priceWarnings(s) {
					fmt.Fprintf(tw, "%s\n", w)
				}
			}
			probesOK, probesDetail := probescli.Diagnose()
			probesStatus := "ok"
			if !probesOK {
				probesStatus = "absent"
			}
			fmt.Fprintf(tw, "probes\t%s\t%s\n", probesStatus, probesDetail)
			if err := tw.Flush(); err != nil {
				return err
			}
			if !studyNeeds && reachable == 0 {
				fmt.Fprintln(g.stdout, "\nno hosted provider is reachable from here: no API key is set in the environment. Scripted reference agents (hcl/smoke.hcl) run anyway; for Ollama or OpenAI-compatible servers, give the study to `killchain doctor FILE` to probe its hosts.")
			}
			if bad {
				fmt.Fprintln(g.stderr, "killchain doctor: the study needs something that cannot be reached (see above)")
				return errSilent
			}
			return nil
		},
	}
}

func status(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSING"
}

func checkDocker(ctx context.Context) (bool, string) {
	cli, err := images.NewClient()
	if err != nil {
		return false, fmt.Sprintf("no Docker client: %v — install Docker or run studies with --sandbox local", err)
	}
	defer cli.Close()
	v, err := cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return false, fmt.Sprintf("the daemon does not answer: %v — start it (systemctl start docker) or set DOCKER_HOST; without Docker use --sandbox local", err)
	}
	return true, "daemon " + v.Version
}

// priceWarnings are doctor's lines for the hosted models of s that have no
// price: their runs would be recorded as costing $0 and no cost limit
// could hold them.
func priceWarnings(s *study.Study) []string {
	var out []string
	for _, m := range s.Models {
		if m.Hosted() && m.Price == nil {
			out = append(out, fmt.Sprintf("model %s\twarning\tno price: its runs are recorded at $0 and a cost limit cannot stop them; add a price block or name it in a pricing file (docs/cost.md)", m.Name))
		}
	}
	return out
}
