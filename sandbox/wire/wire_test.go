package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		in    string
		limit int
		lines []string
		err   error // after the lines
	}{
		{"lines", "a\nbc\n", 10, []string{"a\n", "bc\n"}, io.EOF},
		{"last line without a newline", "a\nbc", 10, []string{"a\n", "bc"}, io.EOF},
		{"exactly the limit", "abcd\n", 5, []string{"abcd\n"}, io.EOF},
		{"one byte over", "abcde\n", 5, nil, ErrLineTooLong},
		{"longer than the reader's buffer", long + "\n", 101, []string{long + "\n"}, io.EOF},
		{"over the limit past the buffer", long + long + "\n", 150, nil, ErrLineTooLong},
		{"empty", "", 5, nil, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = ReadLine(r, tt.limit); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.lines, "|") || !errors.Is(err, tt.err) {
				t.Errorf("lines %q, err %v; want %q, %v", got, err, tt.lines, tt.err)
			}
		})
	}
}

// FuzzReadLine: every line ReadLine returns is within its limit and holds
// a newline only at its end; the lines read before an error are the input
// as it came.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nbb\nccc"), 3)
	f.Add([]byte(`{"id":1,"result":true}`+"\n"), 64)
	f.Add(bytes.Repeat([]byte("A"), 300), 100)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		if limit < 1 || limit > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(bytes.NewReader(in), 16)
		var read []byte
		for {
			line, err := ReadLine(r, limit)
			if len(line) > limit {
				t.Fatalf("line of %d bytes over the limit %d", len(line), limit)
			}
			if i := bytes.IndexByte(line, '\n'); i >= 0 && i != len(line)-1 {
				t.Fatalf("a newline inside %q", line)
			}
			read = append(read, line...)
			if err != nil {
				if errors.Is(err, io.EOF) && !bytes.Equal(read, in) {
					t.Fatalf("read %q of %q", read, in)
				}
				if !bytes.HasPrefix(in, read) {
					t.Fatalf("read %q, not a prefix of %q", read, in)
				}
				return
			}
		}
	})
}
