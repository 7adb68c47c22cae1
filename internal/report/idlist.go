package report

import (
	"cmp"
	"slices"
)

// IDList keeps the Max run ids that sort first, each with a note, and counts
// every id added. Its content does not depend on the order of Add calls.
type IDList struct {
	Max   int
	Total int
	items []IDNote
}

// IDNote is one listed run id.
type IDNote struct {
	RunID string
	Note  string
}

// NewIDList returns an empty list that keeps at most max ids.
func NewIDList(max int) *IDList { return &IDList{Max: max} }

// Add counts a run id and keeps it if it is among the Max smallest.
func (l *IDList) Add(id, note string) {
	l.Total++
	if l.Max <= 0 {
		return
	}
	if len(l.items) == l.Max && id >= l.items[len(l.items)-1].RunID {
		return
	}
	i, _ := slices.BinarySearchFunc(l.items, id, func(x IDNote, id string) int { return cmp.Compare(x.RunID, id) })
	l.items = slices.Insert(l.items, i, IDNote{RunID: id, Note: note})
	if len(l.items) > l.Max {
		l.items = l.items[:l.Max]
	}
}

// Items returns the kept ids, sorted.
func (l *IDList) Items() []IDNote { return slices.Clone(l.items) }
