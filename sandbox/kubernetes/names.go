package kubernetes

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Labels and annotations on everything the backend creates. The label
// values are the names made safe for labels (labelValue); the annotations
// keep them whole.
const (
	LabelStudy   = "killchain.study"
	LabelRun     = "killchain.run"
	LabelTask    = "killchain.task"
	LabelManaged = "app.kubernetes.io/managed-by"
	managedBy    = "killchain"
	// AnnotationRun holds a pod's run ID as the study wrote it.
	AnnotationRun = "killchain.io/run"
)

// labelValue makes s a valid label value: at most 63 characters of
// [A-Za-z0-9._-], starting and ending alphanumeric; a value that had to be
// cut or changed ends in a hash of s, so distinct names stay distinct.
func labelValue(s string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s)
	if clean == s && len(s) <= 63 && alnumEnds(s) {
		return s
	}
	h := sha256.Sum256([]byte(s))
	suffix := hex.EncodeToString(h[:4])
	if len(clean) > 54 {
		clean = clean[:54]
	}
	clean = strings.Trim(clean, "-_.")
	if clean == "" {
		return "x" + suffix
	}
	return clean + "-" + suffix
}

func alnumEnds(s string) bool {
	if s == "" {
		return true
	}
	an := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' }
	return an(s[0]) && an(s[len(s)-1])
}

// dnsLabel makes s a DNS label of at most n characters (lower case
// alphanumerics and '-').
func dnsLabel(s string, n int) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
	if len(out) > n {
		out = out[:n]
	}
	return strings.Trim(out, "-")
}

// validLabel reports whether s is a DNS label (a namespace name).
func validLabel(s string) bool {
	return s != "" && len(s) <= 63 && dnsLabel(s, 63) == s
}

// studyNamespace is the namespace a study gets by default.
func studyNamespace(study string) string {
	name := dnsLabel(study, 40)
	if name == "" {
		name = "study"
	}
	return "killchain-" + name
}

// podName is a fresh pod name for a run.
func podName(run string) string {
	var rnd [4]byte
	rand.Read(rnd[:])
	base := dnsLabel(run, 40)
	if base == "" {
		base = "run"
	}
	return "kc-" + base + "-" + hex.EncodeToString(rnd[:])
}
