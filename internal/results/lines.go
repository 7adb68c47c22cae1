package results

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// blockSize is how much of a file is read at a time; a line longer than a
// block gets a block of its own.
var blockSize = 8 << 20

// scanBlocks reads the file at path in blocks and calls fn for each
// non-blank line with its block, 1-based number, file offset and its span
// in the block, JSON white space trimmed; the line is not copied. Each
// block's memory comes from alloc (nil: a new one each time), which gets
// the least capacity the block needs and may hand back a block whose lines
// nobody reads any more, even the block just scanned (the rest of its last
// line is moved to the start). ctx is checked at each block.
func scanBlocks(ctx context.Context, path string, alloc func(size int) []byte, fn func(block []byte, num int, off int64, start, end int) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	return scanRange(ctx, f, 0, math.MaxInt64, alloc, fn)
}

// scanRange is scanBlocks over the lines of f that start at or after from
// and before to (a line is its first byte's): a range of a file that
// several goroutines scan side by side. Line numbers count from the
// range's first line.
func scanRange(ctx context.Context, f *os.File, from, to int64, alloc func(size int) []byte, fn func(block []byte, num int, off int64, start, end int) error) error {
	if alloc == nil {
		alloc = func(size int) []byte { return make([]byte, 0, size) }
	}
	// From inside the file, the range's first line starts after the first
	// newline at or after from-1.
	skip := from > 0
	off := max(from-1, 0) // file offset of block[0]
	r := io.NewSectionReader(f, off, math.MaxInt64-off)
	var carry []byte
	num := 0
	for eof := false; !eof; {
		if err := ctx.Err(); err != nil {
			return err
		}
		block := alloc(max(blockSize, 2*len(carry)))[:len(carry)]
		copy(block, carry) // carry may lie in block's own memory: copy moves it
		n, err := io.ReadFull(r, block[len(block):cap(block)])
		block = block[:len(block)+n]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			eof = true
		case err != nil:
			return fmt.Errorf("read %s: %w", filepath.Base(f.Name()), err)
		}
		pos := 0
		if skip {
			nl := bytes.IndexByte(block, '\n')
			if nl < 0 {
				// Still in the line that started before the range.
				off += int64(len(block))
				carry = nil
				continue
			}
			pos, skip = nl+1, false
		}
		for pos < len(block) {
			if off+int64(pos) >= to {
				return nil
			}
			nl := bytes.IndexByte(block[pos:], '\n')
			lineEnd := pos + nl
			if nl < 0 {
				if !eof {
					break
				}
				lineEnd = len(block)
			}
			num++
			start, end := pos, lineEnd
			for start < end && isSpace(block[start]) {
				start++
			}
			for end > start && isSpace(block[end-1]) {
				end--
			}
			if start < end {
				if err := fn(block, num, off+int64(pos), start, end); err != nil {
					return err
				}
			}
			pos = lineEnd + 1
		}
		pos = min(pos, len(block))
		carry = block[pos:]
		off += int64(pos)
	}
	return nil
}

// Lines calls fn with the 1-based number, byte offset (of its first byte,
// white space included) and trimmed bytes of each non-blank line of the JSON-lines file at path, in order; data is
// valid during the call only. Lines may be of any length.
func Lines(ctx context.Context, path string, fn func(num int, off int64, data []byte) error) error {
	return scanBlocks(ctx, path, reuse(), func(block []byte, num int, off int64, start, end int) error {
		return fn(num, off, block[start:end])
	})
}

// reuse is a block allocator for a scan that keeps no line past its call:
// one block, grown when a line needs it.
func reuse() func(size int) []byte {
	var last []byte
	return func(size int) []byte {
		if cap(last) < size {
			last = make([]byte, 0, size)
		}
		return last[:0]
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
