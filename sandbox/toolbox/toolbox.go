// Package toolbox implements the sandbox tools over one run's state folder.
// The local backend calls it in-process; the Docker backend runs the same code
// inside the container as a static binary, so only where it runs changes.
package toolbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/killchain/killchain/pdfdoc"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tools"
)

// Files inside the state folder.
const (
	MemoryFile     = "state/memory.json"
	OutboxFile     = "state/outbox.jsonl"
	AdminFile      = "state/admin.jsonl"
	DelegationFile = "state/delegation.jsonl"
	DBFile         = "db/records.json"
	WebDir         = "web"
)

// Transcriber turns an audio file into text.
type Transcriber interface {
	Transcribe(path string) (string, error)
}

// Box runs tools over one state folder. It is safe for concurrent use.
type Box struct {
	Dir         string
	Transcriber Transcriber // nil: transcribe_audio is unavailable
	mu          sync.Mutex
}

// New returns a Box over dir.
func New(dir string, tr Transcriber) *Box { return &Box{Dir: dir, Transcriber: tr} }

// Prepare lays an environment into the state folder: files, the records
// database and seeded memory.
func (b *Box) Prepare(env sandbox.Env) error {
	for rel, data := range env.Files {
		p, err := b.path(rel)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("prepare %s: %w", rel, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("prepare %s: %w", rel, err)
		}
	}
	if err := os.MkdirAll(filepath.Join(b.Dir, "state"), 0o755); err != nil {
		return fmt.Errorf("prepare state: %w", err)
	}
	mem := make([]sandbox.Record, 0, len(env.Memory))
	for _, r := range env.Memory {
		r.Author = "seed"
		mem = append(mem, r)
	}
	return b.saveMemory(mem)
}

// path resolves a relative path inside the state folder, refusing escapes.
func (b *Box) path(rel string) (string, error) {
	clean := path.Clean("/" + strings.TrimSpace(rel))
	if clean == "/" {
		return "", fmt.Errorf("empty path")
	}
	return filepath.Join(b.Dir, filepath.FromSlash(clean[1:])), nil
}

// Call runs one tool. Bad arguments and missing files come back as a Result
// error the model can read; only a broken state folder is a Go error.
func (b *Box) Call(agent, tool string, raw json.RawMessage) (sandbox.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := tools.Lookup(tool); !ok {
		return sandbox.Result{Error: fmt.Sprintf("unknown tool %q", tool)}, nil
	}
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return sandbox.Result{Error: fmt.Sprintf("arguments are not a JSON object: %v", err)}, nil
		}
	}
	get := func(k string) string {
		v, ok := args[k]
		if !ok || v == nil {
			return ""
		}
		if s, ok := v.(string); ok {
			return s
		}
		j, _ := json.Marshal(v)
		return string(j)
	}
	out, err := b.dispatch(agent, tool, get)
	var te toolError
	if errors.As(err, &te) {
		return sandbox.Result{Error: te.msg}, nil
	}
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	return sandbox.Result{Output: out}, nil
}

type toolError struct{ msg string }

func (e toolError) Error() string { return e.msg }

func userErr(format string, a ...any) error { return toolError{fmt.Sprintf(format, a...)} }

func (b *Box) dispatch(agent, tool string, get func(string) string) (string, error) {
	switch tool {
	case tools.GetWebpage:
		return b.getWebpage(get("url"))
	case tools.Search:
		return b.search(get("query"))
	case tools.ParsePDF:
		return b.parsePDF(get("path"))
	case tools.TranscribeAudio:
		return b.transcribe(get("path"))
	case tools.ReadMemory:
		return b.readMemory(get("key"))
	case tools.ListMemory:
		return b.listMemory()
	case tools.WriteMemory:
		return b.writeMemory(agent, get("key"), get("value"))
	case tools.Delegate:
		if get("message") == "" {
			return "", userErr("message is required")
		}
		if err := appendJSON(filepath.Join(b.Dir, DelegationFile), get("message")); err != nil {
			return "", err
		}
		return "handed over to the operations agent", nil
	case tools.SendReport:
		if get("to") == "" {
			return "", userErr("to is required")
		}
		r := sandbox.Report{Agent: agent, To: get("to"), Subject: get("subject"), Body: get("body")}
		if err := appendJSON(filepath.Join(b.Dir, OutboxFile), r); err != nil {
			return "", err
		}
		return fmt.Sprintf("report sent to %s", r.To), nil
	case tools.DeleteRecord:
		return b.deleteRecord(agent, get("record_id"), get("reason"))
	case tools.ExfiltrateData, tools.EscalatePriv:
		spec, _ := tools.Lookup(tool)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(spec.Parameters, &schema)
		a := sandbox.AdminAction{Agent: agent, Tool: tool, Args: map[string]string{}}
		for k := range schema.Properties {
			if v := get(k); v != "" {
				a.Args[k] = v
			}
		}
		if err := appendJSON(filepath.Join(b.Dir, AdminFile), a); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s done", tool), nil
	}
	return "", userErr("tool %q has no implementation", tool)
}

func (b *Box) getWebpage(url string) (string, error) {
	if url == "" {
		return "", userErr("url is required")
	}
	p, err := b.path(WebDir + "/" + PageFile(url))
	if err != nil {
		return "", userErr("bad url %q", url)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", userErr("404 not found: %s", url)
	}
	return string(data), err
}

// PageFile maps a URL to its file name under web/.
func PageFile(url string) string {
	u := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(url), "https://"), "http://")
	u = strings.TrimSuffix(u, "/")
	return strings.NewReplacer("/", "_", "?", "_", "&", "_", "..", "_").Replace(u) + ".txt"
}

func (b *Box) records() ([]sandbox.DBRecord, error) {
	var recs []sandbox.DBRecord
	data, err := os.ReadFile(filepath.Join(b.Dir, DBFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("records database: %w", err)
	}
	return recs, nil
}

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

func (b *Box) deleteRecord(agent, id, reason string) (string, error) {
	if id == "" {
		return "", userErr("record_id is required")
	}
	recs, err := b.records()
	if err != nil {
		return "", err
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
	if err := appendJSON(filepath.Join(b.Dir, AdminFile), sandbox.AdminAction{Agent: agent, Tool: tools.DeleteRecord, Args: map[string]string{"record_id": id, "reason": reason}}); err != nil {
		return "", err
	}
	if !found {
		return "", userErr("no record %q", id)
	}
	if err := writeJSON(filepath.Join(b.Dir, DBFile), kept); err != nil {
		return "", err
	}
	return fmt.Sprintf("record %s deleted", id), nil
}

func (b *Box) parsePDF(rel string) (string, error) {
	p, err := b.path(rel)
	if err != nil {
		return "", userErr("bad path %q", rel)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", userErr("no such document: %s", rel)
	}
	if err != nil {
		return "", err
	}
	doc, err := pdfdoc.Extract(data)
	if err != nil {
		return "", userErr("cannot parse %s: %v", rel, err)
	}
	return doc.String(), nil
}

func (b *Box) transcribe(rel string) (string, error) {
	if b.Transcriber == nil {
		return "", userErr("transcribe_audio is %v", sandbox.ErrUnavailable)
	}
	p, err := b.path(rel)
	if err != nil {
		return "", userErr("bad path %q", rel)
	}
	if _, err := os.Stat(p); err != nil {
		return "", userErr("no such recording: %s", rel)
	}
	text, err := b.Transcriber.Transcribe(p)
	if err != nil {
		return "", fmt.Errorf("transcribe %s: %w", rel, err)
	}
	return text, nil
}

func (b *Box) memory() ([]sandbox.Record, error) {
	var mem []sandbox.Record
	data, err := os.ReadFile(filepath.Join(b.Dir, MemoryFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &mem); err != nil {
		return nil, fmt.Errorf("memory store: %w", err)
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
		fmt.Fprintf(&sb, "[%s]\n%s\n\n", r.Key, r.Value)
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

func (b *Box) writeMemory(agent, key, value string) (string, error) {
	if key == "" {
		return "", userErr("key is required")
	}
	mem, err := b.memory()
	if err != nil {
		return "", err
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
		return "", err
	}
	return fmt.Sprintf("stored %d characters under %q", len(value), key), nil
}

// State reads the final state of the folder.
func (b *Box) State() (sandbox.State, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var st sandbox.State
	var err error
	if st.Memory, err = b.memory(); err != nil {
		return st, err
	}
	if st.DB, err = b.records(); err != nil {
		return st, err
	}
	if err := readJSONL(filepath.Join(b.Dir, OutboxFile), &st.Outbox); err != nil {
		return st, err
	}
	if err := readJSONL(filepath.Join(b.Dir, AdminFile), &st.Admin); err != nil {
		return st, err
	}
	if err := readJSONL(filepath.Join(b.Dir, DelegationFile), &st.Delegation); err != nil {
		return st, err
	}
	return st, nil
}
