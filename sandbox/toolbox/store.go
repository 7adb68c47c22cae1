package toolbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// The stores the tools keep in the state folder: the records database
// (search, delete_record) and the memory store (read_memory, list_memory,
// write_memory), each one JSON file.

// records reads the records database. One the agent's commands broke (not
// a regular file, too large, not a JSON array of records) is a tool error
// (brokenStore).
func (b *Box) records() ([]sandbox.DBRecord, error) {
	var recs []sandbox.DBRecord
	if err := readStore(filepath.Join(b.Dir, sandbox.DBFile), "records database", &recs); err != nil {
		return nil, err
	}
	return recs, nil
}

// readStore decodes the JSON store at p into v; a missing store is empty.
func readStore(p, name string, v any) error {
	data, err := readBounded(p, maxStore)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if unreadable(err) {
		return brokenStore{toolError{fmt.Sprintf("the %s is unreadable: %v", name, err)}}
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return brokenStore{toolError{fmt.Sprintf("the %s is not valid: %v", name, err)}}
	}
	return nil
}

// brokenStore is a store the agent's commands overwrote or replaced: tools
// show it to the model, and State reads it as empty (the agent destroyed
// it: for a verifier its records are gone).
type brokenStore struct{ toolError }

func (e brokenStore) Unwrap() error { return e.toolError }

func (b *Box) search(query string) (string, error) {
	recs, err := b.records()
	if err != nil {
		return "", err
	}
	terms := strings.Fields(strings.ToLower(query))
	var sb strings.Builder
	n := 0
	for _, r := range recs {
		hay := strings.ToLower(r.Title + " " + r.Body)
		hit := len(terms) == 0
		for _, t := range terms {
			if len(t) > 2 && strings.Contains(hay, t) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		n++
		fmt.Fprintf(&sb, "[%s] %s\n%s\n\n", r.ID, r.Title, r.Body)
	}
	if n == 0 {
		return "no records match", nil
	}
	return fmt.Sprintf("%d records\n\n%s", n, strings.TrimSpace(sb.String())), nil
}

// deleteRecord deletes a record; only a deletion that took place is an
// effect (the admin action is logged after the record is gone).
func (b *Box) deleteRecord(agent, id, reason string) (string, *sandbox.Effect, error) {
	if id == "" {
		return "", nil, userErr("record_id is required")
	}
	recs, err := b.records()
	if err != nil {
		return "", nil, err
	}
	kept := recs[:0]
	found := false
	for _, r := range recs {
		if r.ID == id {
			found = true
			continue
		}
		kept = append(kept, r)
	}
	if !found {
		return "", nil, userErr("no record %q", id)
	}
	if err := writeJSON(filepath.Join(b.Dir, sandbox.DBFile), kept); err != nil {
		return "", nil, err
	}
	act := sandbox.AdminAction{Agent: agent, Tool: tools.DeleteRecord, Args: map[string]string{"record_id": id}}
	if reason != "" {
		act.Args["reason"] = reason
	}
	return fmt.Sprintf("record %s deleted", id), &sandbox.Effect{Kind: sandbox.EffectAdmin, Admin: &act}, nil
}

// memory reads the memory store; one the agent's commands broke is a tool
// error (brokenStore), as for records.
func (b *Box) memory() ([]sandbox.Record, error) {
	mem := []sandbox.Record{} // a missing store is an empty one, as written
	if err := readStore(filepath.Join(b.Dir, MemoryFile), "memory store", &mem); err != nil {
		return nil, err
	}
	return mem, nil
}

func (b *Box) saveMemory(mem []sandbox.Record) error {
	return writeJSON(filepath.Join(b.Dir, MemoryFile), mem)
}

func (b *Box) readMemory(key string) (string, error) {
	mem, err := b.memory()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, r := range mem {
		if key != "" && r.Key != key {
			continue
		}
		fmt.Fprintf(&sb, "[%s]\n%s\n\n", r.Key, r.Text())
	}
	if sb.Len() == 0 {
		if key != "" {
			return "", userErr("no memory record %q", key)
		}
		return "memory is empty", nil
	}
	return strings.TrimSpace(sb.String()), nil
}

func (b *Box) listMemory() (string, error) {
	mem, err := b.memory()
	if err != nil {
		return "", err
	}
	keys := make([]string, 0, len(mem))
	for _, r := range mem {
		keys = append(keys, r.Key)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "memory is empty", nil
	}
	return strings.Join(keys, "\n"), nil
}

// writeMemory commits a record; the value is stored as the JSON value it
// came as, and the effect carries the record exactly as committed.
func (b *Box) writeMemory(agent, key string, value json.RawMessage) (string, *sandbox.Effect, error) {
	if key == "" {
		return "", nil, userErr("key is required")
	}
	mem, err := b.memory()
	if err != nil {
		return "", nil, err
	}
	rec := sandbox.Record{Key: key, Value: value, Author: agent}
	replaced := false
	for i := range mem {
		if mem[i].Key == key {
			mem[i] = rec
			replaced = true
		}
	}
	if !replaced {
		mem = append(mem, rec)
	}
	if err := b.saveMemory(mem); err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("stored %d characters under %q", len(rec.Text()), key), &sandbox.Effect{Kind: sandbox.EffectMemory, Record: &rec}, nil
}
