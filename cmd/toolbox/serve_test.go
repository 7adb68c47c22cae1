package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/wire"
)

func TestServe(t *testing.T) {
	root := t.TempDir()
	pristine := filepath.Join(root, "snapshot")
	state := filepath.Join(root, "work")
	os.MkdirAll(filepath.Join(pristine, "web"), 0o755)
	os.WriteFile(filepath.Join(pristine, "web", "stale.txt"), []byte("stale"), 0o644)
	os.WriteFile(filepath.Join(pristine, "web", "kept.txt"), []byte("kept page"), 0o644)
	os.MkdirAll(state, 0o755)

	reqs := []wire.Request{
		{ID: 1, Op: wire.OpPrepare, Remove: []string{"web/stale.txt"}, Env: &sandbox.Env{Memory: []sandbox.Record{sandbox.TextRecord("k", "seeded", "")}}},
		{ID: 2, Op: wire.OpCall, Agent: "a", Tool: "get_webpage", Args: json.RawMessage(`{"url":"kept"}`)},
		{ID: 3, Op: wire.OpCall, Agent: "a", Tool: "get_webpage", Args: json.RawMessage(`{"url":"stale"}`)},
		{ID: 4, Op: wire.OpState},
		{ID: 5, Op: wire.OpProbe, Probe: "net"},
		{ID: 6, Op: "nonsense"},
		{ID: 7, Op: wire.OpPrepare, Env: &sandbox.Env{Speech: []sandbox.Speech{{Path: "audio/a.wav", Text: "hello"}}}},
	}
	var in bytes.Buffer
	for _, r := range reqs {
		line, _ := json.Marshal(r)
		in.Write(append(line, '\n'))
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"serve", "-state", state, "-pristine", pristine}, &in, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var resps []wire.Response
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r wire.Response
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		resps = append(resps, r)
	}
	if len(resps) != len(reqs) {
		t.Fatalf("%d responses, want %d", len(resps), len(reqs))
	}
	tests := []struct {
		name, want, err string
	}{
		{name: "prepare", want: "true"},
		{name: "kept page", want: "kept page"},
		{name: "removed page", want: "404"},
		{name: "state", want: `"value":"seeded","author":"seed"`},
		{name: "probe disabled", err: "probe is disabled"},
		{name: "unknown op", err: "unknown op"},
		{name: "no synthesizer", err: "speech synthesis is not available"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := resps[i]
			if r.ID != reqs[i].ID {
				t.Errorf("id = %d, want %d", r.ID, reqs[i].ID)
			}
			if tc.err != "" {
				if !strings.Contains(r.Error, tc.err) {
					t.Errorf("error = %q, want %q", r.Error, tc.err)
				}
				return
			}
			if r.Error != "" || !strings.Contains(string(r.Result), tc.want) {
				t.Errorf("result = %s (error %q), want %q", r.Result, r.Error, tc.want)
			}
		})
	}
}

func TestTranscriptText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello world\n", "hello world"},
		{"pocketsphinx json", `{"b":0.0,"d":1.2,"p":1,"t":"sierra echo charlie"}` + "\n" + `{"b":1.2,"d":0.5,"p":1,"t":"romeo"}`, "sierra echo charlie romeo"},
		{"blank lines", "\n\n one \n\n", "one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := transcriptText([]byte(tc.in)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	got := expand(strings.Fields("espeak-ng -w {out} {text}"), map[string]string{"out": "/work/a.wav", "text": "two words"})
	want := []string{"espeak-ng", "-w", "/work/a.wav", "two words"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
