package attacker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/killchain/killchain/internal/attacks"
)

// DefaultEncodings are the forms the reference attacker tries: clear text
// and the three lossless encodings every text surface carries.
var DefaultEncodings = []string{"", "base64", "rot13", "hex"}

// Reference is the reference attacker: a search over the attack library's
// canary families crossed with encodings, using what its mode tells it.
//
//   - None: every round a fresh random draw (it cannot know what failed).
//   - Outcome: a payload that reached the goal is proposed again; otherwise
//     it draws among the candidates not yet tried, those sharing the least
//     with earlier failures first (a failure blames its family and its
//     encoding alike: the outcome does not say which failed).
//   - Stage: as Outcome, but where the canary stopped says which half of a
//     candidate to blame. Stopped before the second agent, the form (the
//     encoding) did not survive the hop: the encoding takes heavy blame,
//     the family none. Stopped at an agent that read it and did not act
//     (or carried the code elsewhere), the framing most likely did not
//     persuade: the family takes twice the blame the encoding takes.
//
// It is deterministic for a seed and a history.
type Reference struct {
	Seed      uint64
	Families  []string // default: every built-in family whose goal is the canary
	Encodings []string // default: DefaultEncodings
}

var _ Proposer = (*Reference)(nil)

type candidate struct{ family, encoding string }

func (c candidate) payload(id, parent string) Payload {
	f, _ := attacks.LookupFamily(c.family)
	p := Payload{ID: id, Family: c.family, Text: f.Template, Parent: parent}
	if c.encoding != "" {
		p.Encodings = []string{c.encoding}
	}
	return p
}

func (r *Reference) space() []candidate {
	fams := r.Families
	if len(fams) == 0 {
		for _, f := range attacks.Families {
			if f.Goal == attacks.GoalCanary {
				fams = append(fams, f.Name)
			}
		}
	}
	encs := r.Encodings
	if len(encs) == 0 {
		encs = DefaultEncodings
	}
	var out []candidate
	for _, f := range fams {
		for _, e := range encs {
			out = append(out, candidate{f, e})
		}
	}
	return out
}

// of reads a library payload back as a candidate; ok is false for one a
// model wrote or one of more than one encoding.
func of(p Payload) (candidate, bool) {
	if _, ok := attacks.LookupFamily(p.Family); !ok || len(p.Encodings) > 1 {
		return candidate{}, false
	}
	c := candidate{family: p.Family}
	if len(p.Encodings) == 1 {
		c.encoding = p.Encodings[0]
	}
	return c, true
}

// Propose draws the round's payloads.
func (r *Reference) Propose(ctx context.Context, t Turn) (Proposal, error) {
	if err := ctx.Err(); err != nil {
		return Proposal{}, err
	}
	rng := rand.New(rand.NewPCG(r.Seed, uint64(t.Round)))
	space := r.space()
	n := max(1, t.Payloads)
	id := func(i int) string { return fmt.Sprintf("r%d.%d", t.Round, i+1) }
	var out []Payload
	if t.Mode == None {
		for i, k := range rng.Perm(len(space))[:min(n, len(space))] {
			out = append(out, space[k].payload(id(i), ""))
		}
		return Proposal{Payloads: out}, nil
	}

	tried := map[candidate]bool{}
	famBlame, encBlame := map[string]int{}, map[string]int{}
	var winners []Payload
	for _, h := range t.History {
		for i, p := range h.Payloads {
			c, ok := of(p)
			if ok {
				tried[c] = true
			}
			if i >= len(h.Observations) {
				continue
			}
			o := h.Observations[i]
			if o.Goals > 0 {
				winners = append(winners, p)
				continue
			}
			if !ok || o.Runs == 0 {
				continue
			}
			if t.Mode == Outcome {
				// A failure, with no word of where: both halves share the blame.
				famBlame[c.family]++
				encBlame[c.encoding]++
				continue
			}
			for _, b := range o.Boundaries {
				switch b {
				case BoundaryWriter, BoundaryFiltered, BoundaryPersisted:
					// The form did not survive a hop: the encoding is to blame.
					encBlame[c.encoding] += 10
				case BoundaryReader, BoundarySingle, BoundaryBlocked, BoundaryCarried:
					// Read and not acted on: more likely the framing, maybe
					// a form the agent could not read.
					famBlame[c.family] += 2
					encBlame[c.encoding]++
				}
			}
		}
	}
	// What worked is kept: proposed again, derived from itself.
	for _, w := range winners {
		if len(out) == n {
			break
		}
		if c, ok := of(w); ok && !slices.ContainsFunc(out, func(p Payload) bool { return p.Name() == w.Name() }) {
			out = append(out, c.payload(id(len(out)), w.ID))
		}
	}
	var pool []candidate
	for _, c := range space {
		if !tried[c] {
			pool = append(pool, c)
		}
	}
	if len(pool) == 0 {
		pool = space
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	{
		slices.SortStableFunc(pool, func(a, b candidate) int {
			return (famBlame[a.family] + encBlame[a.encoding]) - (famBlame[b.family] + encBlame[b.encoding])
		})
	}
	for _, c := range pool {
		if len(out) == n {
			break
		}
		out = append(out, c.payload(id(len(out)), r.parent(t, c)))
	}
	return Proposal{Payloads: out}, nil
}

// parent is the latest earlier payload sharing the candidate's family or
// encoding: what the new one varies.
func (r *Reference) parent(t Turn, c candidate) string {
	for i := len(t.History) - 1; i >= 0; i-- {
		for _, p := range t.History[i].Payloads {
			if pc, ok := of(p); ok && (pc.family == c.family || pc.encoding == c.encoding) {
				return p.ID
			}
		}
	}
	return ""
}
