// Package toolbox implements the sandbox tools over one run's state folder.
// The local backend calls it in-process; the Docker backend runs the same code
// inside the container as a static binary, so only where it runs changes.
package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/killchain/killchain/internal/pdfdoc"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// Files inside the state folder.
const (
	MemoryFile = "state/memory.json"
	// EffectsFile is the effect log: one line per effect a tool carried out
	// (a record committed, a report queued, an admin action taken, a message
	// handed over). The outbox, admin log and delegations are read from it.
	EffectsFile = "state/effects.jsonl"
)

// Transcriber turns an audio file into text.
type Transcriber interface {
	Transcribe(path string) (string, error)
}

// Box runs tools over one state folder. It is safe for concurrent use.
type Box struct {
	Dir         string
	Transcriber Transcriber // nil: transcribe_audio is unavailable
	// Shell is the shell run_shell runs (DefaultShell when empty) and
	// ShellTimeout its time limit per command (DefaultShellTimeout when 0).
	Shell        string
	ShellTimeout time.Duration
	// Confine is how run_shell holds a command's processes to its call
	// (confine.go); the zero value is a process group of its own.
	Confine Confine
	lock    chan struct{}    // held by the call in progress
	seq     int              // effects carried out so far; -1 until read from the log
	effects []sandbox.Effect // the log as this Box keeps it, once read
	// world is the run's stateful environment (world.go), nil without
	// one; worldOut says which of its tools are outbound.
	world    *world.World
	worldOut map[string]bool
}

// New returns a Box over dir.
func New(dir string, tr Transcriber) *Box {
	return &Box{Dir: dir, Transcriber: tr, seq: -1, lock: make(chan struct{}, 1)}
}

// acquire takes the Box's lock, or gives up when ctx ends first.
func (b *Box) acquire(ctx context.Context) error {
	select {
	case b.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Box) release() { <-b.lock }

// Prepare lays an environment into the state folder: files, links, the records
// database, seeded memory, the task's own tools and the phrase lists of
// speech clips (the clips themselves are synthesized by the backend).
func (b *Box) Prepare(env sandbox.Env) error {
	if err := b.saveTools(env.Tools); err != nil {
		return err
	}
	for _, sp := range env.Speech {
		if sp.Phrases == "" {
			continue
		}
		p, err := b.path(sp.Path + sandbox.PhrasesSuffix)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("prepare %s: %w", sp.Path, err)
		}
		if err := os.WriteFile(p, []byte(sp.Phrases), 0o644); err != nil {
			return fmt.Errorf("prepare %s: %w", sp.Path, err)
		}
	}
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
	for rel, target := range env.Links {
		p, err := b.path(rel)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("prepare %s: %w", rel, err)
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("prepare %s: %w", rel, err)
		}
		if err := os.Symlink(target, p); err != nil {
			return fmt.Errorf("prepare %s: %w", rel, err)
		}
	}
	// The state folder and its stores are made when first written: a
	// missing store reads as empty, and a run that seeds no memory and
	// carries out nothing makes no file (each file made and removed again
	// is what a run's sandbox costs on a disk). A store the snapshot
	// already holds is replaced by the run's seeds, even when none.
	mem := make([]sandbox.Record, 0, len(env.Memory))
	for _, r := range env.Memory {
		r.Author = "seed"
		mem = append(mem, r)
	}
	if _, err := os.Lstat(filepath.Join(b.Dir, MemoryFile)); len(mem) > 0 || !errors.Is(err, fs.ErrNotExist) {
		if err := b.saveMemory(mem); err != nil {
			return err
		}
	}
	b.acquire(context.Background())
	defer b.release()
	if err := b.openWorld(env.World); err != nil {
		return err
	}
	return b.loadEffects()
}

// path resolves a relative path inside the state folder, refusing escapes.
func (b *Box) path(rel string) (string, error) { return sandbox.Join(b.Dir, rel) }

// Call runs one tool. Bad arguments and missing files come back as a Result
// error the model can read; only a broken state folder is a Go error. A call
// that changed the sandbox returns the Effect it carried out, exactly as it
// was stored; a failed call returns none.
func (b *Box) Call(agent, tool string, raw json.RawMessage) (sandbox.Result, error) {
	return b.CallContext(context.Background(), agent, tool, raw)
}

// CallContext is Call under ctx: a call that waits for the one in progress
// gives up when ctx ends, and a run_shell command is killed with it (the
// call then returns ctx's error, never a result).
func (b *Box) CallContext(ctx context.Context, agent, tool string, raw json.RawMessage) (sandbox.Result, error) {
	if err := b.acquire(ctx); err != nil {
		return sandbox.Result{}, err
	}
	defer b.release()
	a := args{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &a); err != nil {
			return sandbox.Result{Error: fmt.Sprintf("arguments are not a JSON object: %v", err)}, nil
		}
		if err := sandbox.CheckArgs(raw); err != nil {
			return sandbox.Result{Error: "arguments: " + err.Error()}, nil
		}
	}
	if b.world != nil && b.world.Serves(tool) {
		return b.callWorld(ctx, agent, tool, raw, a)
	}
	def, custom, err := b.taskTool(tool)
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	if _, ok := tools.Lookup(tool); !ok && !custom {
		return sandbox.Result{Error: fmt.Sprintf("unknown tool %q", tool)}, nil
	}
	var (
		out  string
		eff  *sandbox.Effect
		code *int
	)
	switch {
	case custom:
		out, eff, err = b.callTaskTool(agent, def, a)
	case tool == tools.RunShell:
		out, eff, code, err = b.runShell(ctx, a.get("command"))
	default:
		out, eff, err = b.dispatch(agent, tool, a)
	}
	var te toolError
	if errors.As(err, &te) {
		return sandbox.Result{Error: te.msg}, nil
	}
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	if ctx.Err() != nil {
		return sandbox.Result{}, ctx.Err()
	}
	if eff != nil {
		eff.Agent, eff.Tool = agent, tool
		if err := b.logEffect(eff); err != nil {
			return sandbox.Result{}, fmt.Errorf("%s: %w", tool, err)
		}
	}
	if b.world != nil {
		b.world.Record(agent, tool, raw, out, tools.IsOutbound(tool) || custom && def.Outbound)
	}
	return sandbox.Result{Output: out, Effect: eff, ExitCode: code}, nil
}

// args are a call's arguments, each kept as the JSON the model sent.
type args map[string]json.RawMessage

// get returns an argument as the sandbox stores it: a JSON string as its
// text, any other value (array, object, number) as its compact JSON, and ""
// when it is absent or null.
func (a args) get(k string) string {
	v, ok := a[k]
	if !ok {
		return ""
	}
	return sandbox.ArgText(v)
}

// raw returns an argument as a compact JSON value ("" when absent or null).
func (a args) raw(k string) json.RawMessage {
	v, ok := a[k]
	if !ok || string(v) == "null" {
		return sandbox.TextValue("")
	}
	return json.RawMessage(compact(v))
}

func compact(v json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return string(v)
	}
	return buf.String()
}

// loadEffects reads the effect log from its file once; from then on the
// Box's own copy is the log (a shell command that rewrites the file
// changes nothing State returns).
func (b *Box) loadEffects() error {
	if b.seq >= 0 {
		return nil
	}
	var log []sandbox.Effect
	if err := readJSONL(filepath.Join(b.Dir, EffectsFile), &log); err != nil {
		return err
	}
	b.effects, b.seq = log, len(log)
	return nil
}

// logEffect numbers an effect and appends it to the effect log.
func (b *Box) logEffect(e *sandbox.Effect) error {
	if err := b.loadEffects(); err != nil {
		return err
	}
	b.seq++
	e.Seq = b.seq
	b.effects = append(b.effects, *e)
	return appendJSON(filepath.Join(b.Dir, EffectsFile), e)
}

type toolError struct{ msg string }

func (e toolError) Error() string { return e.msg }

func userErr(format string, a ...any) error { return toolError{fmt.Sprintf(format, a...)} }

func (b *Box) dispatch(agent, tool string, a args) (string, *sandbox.Effect, error) {
	read := func(out string, err error) (string, *sandbox.Effect, error) { return out, nil, err }
	switch tool {
	case tools.GetWebpage:
		return read(b.getWebpage(a.get("url")))
	case tools.Search:
		return read(b.search(a.get("query")))
	case tools.ParsePDF:
		return read(b.parsePDF(a.get("path")))
	case tools.TranscribeAudio:
		return read(b.transcribe(a.get("path")))
	case tools.ReadMemory:
		return read(b.readMemory(a.get("key")))
	case tools.ListMemory:
		return read(b.listMemory())
	case tools.WriteMemory:
		return b.writeMemory(agent, a.get("key"), a.raw("value"))
	case tools.Delegate:
		msg := a.get("message")
		if msg == "" {
			return "", nil, userErr("message is required")
		}
		return "handed over to the operations agent", &sandbox.Effect{Kind: sandbox.EffectDelegation, Message: msg}, nil
	case tools.SendReport:
		if a.get("to") == "" {
			return "", nil, userErr("to is required")
		}
		r := sandbox.Report{Agent: agent, To: a.get("to"), Subject: a.get("subject"), Body: a.get("body")}
		return fmt.Sprintf("report sent to %s", r.To), &sandbox.Effect{Kind: sandbox.EffectReport, Report: &r}, nil
	case tools.DeleteRecord:
		return b.deleteRecord(agent, a.get("record_id"), a.get("reason"))
	case tools.ExfiltrateData, tools.EscalatePriv:
		spec, _ := tools.Lookup(tool)
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		_ = json.Unmarshal(spec.Parameters, &schema)
		for _, k := range schema.Required {
			if a.get(k) == "" {
				return "", nil, userErr("%s is required", k)
			}
		}
		act := sandbox.AdminAction{Agent: agent, Tool: tool, Args: map[string]string{}}
		for k := range schema.Properties {
			if v := a.get(k); v != "" {
				act.Args[k] = v
			}
		}
		return fmt.Sprintf("%s done", tool), &sandbox.Effect{Kind: sandbox.EffectAdmin, Admin: &act}, nil
	case tools.ListFiles:
		return read(b.listFiles(a.get("path")))
	case tools.ReadFile:
		return read(b.readFile(a.get("path")))
	case tools.WriteFile:
		return b.writeFile(a.get("path"), a.get("content"))
	}
	return "", nil, userErr("tool %q has no implementation", tool)
}

func (b *Box) getWebpage(url string) (string, error) {
	if url == "" {
		return "", userErr("url is required")
	}
	p, err := b.path(sandbox.WebDir + "/" + sandbox.PageFile(url))
	if err != nil {
		return "", userErr("bad url %q", url)
	}
	data, err := readBounded(p, maxDocument)
	if badPath(err) {
		return "", userErr("404 not found: %s", url)
	}
	if unreadable(err) {
		return "", userErr("cannot fetch %s: the page is %v", url, err)
	}
	return string(data), err
}

// badPath reports whether reading a path a model gave failed because of the
// path itself (missing, too long, a folder, through a file): the model's
// mistake, shown to it as a tool error, never a broken sandbox.
func badPath(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENAMETOOLONG) ||
		errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.EINVAL)
}

func (b *Box) parsePDF(rel string) (string, error) {
	p, err := b.path(rel)
	if err != nil {
		return "", userErr("bad path %q", rel)
	}
	data, err := readBounded(p, maxDocument)
	if badPath(err) {
		return "", userErr("no such document: %s", rel)
	}
	if unreadable(err) {
		return "", userErr("cannot read %s: %v", rel, err)
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
	head, size, err := readPrefix(p, 12)
	switch {
	case badPath(err):
		return "", userErr("no such recording: %s", rel)
	case unreadable(err):
		return "", userErr("cannot transcribe %s: %v", rel, err)
	case err != nil:
		return "", err
	case size > maxDocument:
		return "", userErr("cannot transcribe %s: %v (%d bytes, the limit is %d)", rel, errTooLarge, size, maxDocument)
	case !isWAV(head):
		return "", userErr("cannot transcribe %s: not a WAV recording", rel)
	}
	text, err := b.Transcriber.Transcribe(p)
	if err != nil {
		return "", fmt.Errorf("transcribe %s: %w", rel, err)
	}
	return text, nil
}

// isWAV reports whether head, a file's first bytes, starts a RIFF WAVE file.
func isWAV(head []byte) bool {
	return len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE"
}

// State reads the final state of the folder. A store the agent's commands
// broke reads as empty: that is what they left.
func (b *Box) State() (sandbox.State, error) {
	b.acquire(context.Background())
	defer b.release()
	var st sandbox.State
	var err error
	var broken brokenStore
	if st.Memory, err = b.memory(); err != nil && !errors.As(err, &broken) {
		return st, err
	}
	if st.DB, err = b.records(); err != nil && !errors.As(err, &broken) {
		return st, err
	}
	if err := b.loadEffects(); err != nil {
		return st, err
	}
	st.SetEffects(append([]sandbox.Effect(nil), b.effects...))
	return st, b.worldState(&st)
}
