package study

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/plural"
)

// WriteDiagnostics prints one line per diagnostic,
//
//	file:line:col: error: summary; detail
//
// followed, when files holds the file's bytes, by the source line and a
// caret under the range. files may be nil.
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) error {
	bw := bufio.NewWriter(w)
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += "; " + d.Detail
		}
		if d.Subject == nil {
			fmt.Fprintf(bw, "%s: %s\n", sev, msg)
			continue
		}
		fmt.Fprintf(bw, "%s: %s: %s\n", hcldiag.RangeString(*d.Subject), sev, msg)
		if f, ok := files[d.Subject.Filename]; ok && f != nil {
			writeSnippet(bw, f.Bytes, *d.Subject)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diagnostics: %w", err)
	}
	return nil
}

// writeSnippet prints the range's first line with carets under the range.
func writeSnippet(w io.Writer, src []byte, r hcl.Range) {
	lines := bytes.Split(src, []byte("\n"))
	if r.Start.Line < 1 || r.Start.Line > len(lines) {
		return
	}
	line := strings.TrimRight(string(lines[r.Start.Line-1]), "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	// Columns count characters; tabs stay tabs so the caret lines up.
	runes := []rune(line)
	start := min(max(r.Start.Column-1, 0), len(runes))
	end := len(runes)
	if r.End.Line == r.Start.Line {
		end = min(max(r.End.Column-1, start+1), len(runes))
	}
	pad := make([]rune, start)
	for i := range pad {
		pad[i] = ' '
		if runes[i] == '\t' {
			pad[i] = '\t'
		}
	}
	fmt.Fprintf(w, "    %s\n    %s%s\n", line, string(pad), strings.Repeat("^", max(end-start, 1)))
}

// LoadAndReport loads a study file and prints its diagnostics, warnings
// included, to w. It returns the study and whether it is free of errors.
func LoadAndReport(path string, w io.Writer) (*Study, bool) {
	s, diags := loadAndReport(path, w)
	if diags.HasErrors() {
		return nil, false
	}
	return s, true
}

// loadAndReport loads a study file, prints its diagnostics to w and
// returns them.
func loadAndReport(path string, w io.Writer) (*Study, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		// Named like every other problem: file: error: what.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(w, "%s: error: cannot read study file; %v\n", path, err)
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read study file"}}
	}
	s, diags := Parse(path, src)
	files := sources(diags, map[string]*hcl.File{path: {Bytes: src}})
	if err := WriteDiagnostics(w, files, diags); err != nil {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write diagnostics"})
	}
	return s, diags
}

// Validate loads a study file, prints its diagnostics to stderr and a
// one-line verdict to stdout, and returns an exit status: 0 when the file
// is valid, 1 if not. A file of task blocks alone is checked as a task
// file (ValidateTasks).
func Validate(path string, stdout, stderr io.Writer) int {
	if isTaskFile(path) {
		return ValidateTasks(path, stdout, stderr)
	}
	s, diags := loadAndReport(path, stderr)
	if diags.HasErrors() {
		return invalid(stdout, path, diags)
	}
	runs, err := s.Plan()
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", path, err)
		return invalid(stdout, path, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError}))
	}
	fmt.Fprintf(stdout, "%s: study %q is valid: %s, %s%s\n", path, s.Name, plural.Count(len(s.Grids), "grid"), plural.Count(len(runs), "run"), warnings(diags))
	return 0
}

// invalid prints the verdict on a file with errors and returns 1.
func invalid(w io.Writer, path string, diags hcl.Diagnostics) int {
	errs := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs++
		}
	}
	fmt.Fprintf(w, "%s: not valid: %s%s\n", path, plural.Count(errs, "error"), warnings(diags))
	return 1
}

// warnings is ", 2 warnings" for a verdict's line ("" for none).
func warnings(diags hcl.Diagnostics) string {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return " (" + plural.Count(n, "warning") + ")"
}

// sources adds to files the bytes of every other file a diagnostic is
// about (a task file the study names), for the source line under it.
func sources(diags hcl.Diagnostics, files map[string]*hcl.File) map[string]*hcl.File {
	for _, d := range diags {
		if d.Subject == nil {
			continue
		}
		if _, ok := files[d.Subject.Filename]; ok {
			continue
		}
		src, err := os.ReadFile(d.Subject.Filename)
		if err != nil {
			files[d.Subject.Filename] = nil
			continue
		}
		files[d.Subject.Filename] = &hcl.File{Bytes: src}
	}
	return files
}
