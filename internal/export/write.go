package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/killchain/killchain/internal/rooted"
)

// The members of a .eval file, as Inspect's writer lays them out.
const (
	memberStart      = "_journal/start.json"
	memberSummaries  = "summaries.json"
	memberReductions = "reductions.json"
	memberHeader     = "header.json"
	// journalBatch is how many samples one _journal/summaries/N.json
	// lists, as Inspect's writer flushes them in batches.
	journalBatch = 10
)

// SampleMember is the zip member of a sample: samples/{id}_epoch_{n}.json.
func SampleMember(id string, epoch int) string {
	return fmt.Sprintf("samples/%s_epoch_%d.json", id, epoch)
}

// journalMember is the n-th (from 1) journal of sample summaries.
func journalMember(n int) string { return fmt.Sprintf("_journal/summaries/%d.json", n) }

// summary is a sample's line in summaries.json.
func summary(s *EvalSample) EvalSampleSummary {
	sum := EvalSampleSummary{
		ID: s.ID, Epoch: s.Epoch, Input: s.Input, Target: s.Target, Metadata: s.Metadata, Scores: s.Scores,
		ModelUsage: s.ModelUsage, RoleUsage: s.RoleUsage, StartedAt: s.StartedAt, CompletedAt: s.CompletedAt,
		TotalTime: s.TotalTime, WorkingTime: s.WorkingTime, UUID: s.UUID, MessageCount: len(s.Messages), Completed: true,
		Retries: len(s.ErrorRetries),
	}
	if s.Error != nil {
		sum.Error = s.Error.Message
	}
	return sum
}

// writeEval writes a .eval log name into out: the start journal, each sample as
// it is read, the summary journals, summaries.json, reductions.json and,
// last, header.json. The file appears whole or not at all.
func writeEval(out *rooted.Dir, name string, l *inspectLog, next func() (*EvalSample, error)) error {
	mod, err := time.Parse(time.RFC3339, l.header.Eval.Created)
	if err != nil {
		mod = time.Unix(0, 0)
	}
	return writeAtomic(out, name, func(f io.Writer) error {
		z := zip.NewWriter(f)
		put := func(name string, v any) error {
			data, err := encode(v)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		if err := put(memberStart, logStart{Version: l.header.Version, Eval: l.header.Eval, Plan: l.header.Plan}); err != nil {
			return err
		}
		var all []*EvalSample
		var sums, batch []EvalSampleSummary
		journals := 0
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			journals++
			err := put(journalMember(journals), batch)
			batch = nil
			return err
		}
		for {
			s, err := next()
			if err != nil {
				return err
			}
			if s == nil {
				break
			}
			if err := put(SampleMember(s.ID, s.Epoch), s); err != nil {
				return err
			}
			sum := summary(s)
			sums, batch = append(sums, sum), append(batch, sum)
			// Only what the header needs is kept: scores, usage, times.
			all = append(all, &EvalSample{ID: s.ID, Scores: s.Scores, ModelUsage: s.ModelUsage,
				StartedAt: s.StartedAt, CompletedAt: s.CompletedAt, Error: s.Error})
			if len(batch) == journalBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		l.finish(all)
		if err := put(memberSummaries, sums); err != nil {
			return err
		}
		header := l.header
		if err := put(memberReductions, orEmpty(header.Reductions)); err != nil {
			return err
		}
		header.Reductions = nil
		if err := put(memberHeader, header); err != nil {
			return err
		}
		return z.Close()
	})
}

// writeJSON writes a .json log name into out: the header with every
// sample and the reductions.
func writeJSON(out *rooted.Dir, name string, l *inspectLog, next func() (*EvalSample, error)) error {
	var samples []EvalSample
	var refs []*EvalSample
	for {
		s, err := next()
		if err != nil {
			return err
		}
		if s == nil {
			break
		}
		samples = append(samples, *s)
		refs = append(refs, s)
	}
	l.finish(refs)
	log := l.header
	log.Samples = orEmpty(samples)
	log.Reductions = orEmpty(log.Reductions)
	data, err := encode(log)
	if err != nil {
		return err
	}
	return writeAtomic(out, name, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// encode is v as compact JSON, with <, > and & written as they are.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeAtomic writes name into out through package rooted: a temporary
// file in its folder, with the mode of every file of a study, renamed into
// place when fill succeeds; a link at name is refused, never followed.
func writeAtomic(out *rooted.Dir, name string, fill func(io.Writer) error) error {
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}
