package probes

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/rooted"
)

// npyHeaderLen is the fixed size of the headers NpyWriter writes (magic,
// version, length, dict, padding), so the row count can be rewritten in
// place when the file is closed.
const npyHeaderLen = 128

// NpyWriter streams a 2-D little-endian array (float32 "<f4" or int32
// "<i4") to a .npy file row by row; numpy.load and torch open it as is.
type NpyWriter struct {
	f     *os.File
	w     *bufio.Writer
	dtype string
	cols  int
	rows  int
	buf   []byte
}

// CreateNpy creates path for rows of cols values of dtype "<f4" or "<i4".
func CreateNpy(path, dtype string, cols int) (*NpyWriter, error) {
	d, err := rooted.Open(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer d.Close()
	return createNpy(d, filepath.Base(path), dtype, cols)
}

// createNpy creates name in d (through package rooted: a link is refused).
func createNpy(d *rooted.Dir, name, dtype string, cols int) (*NpyWriter, error) {
	if dtype != "<f4" && dtype != "<i4" {
		return nil, fmt.Errorf("npy: unsupported dtype %q", dtype)
	}
	f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, rooted.FileMode)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	n := &NpyWriter{f: f, w: bufio.NewWriterSize(f, 1<<20), dtype: dtype, cols: cols}
	if _, err := n.w.Write(npyHeader(dtype, 0, cols)); err != nil {
		f.Close()
		return nil, fmt.Errorf("npy: %w", err)
	}
	return n, nil
}

func npyHeader(dtype string, rows, cols int) []byte {
	shape := fmt.Sprintf("(%d, %d)", rows, cols)
	if cols < 0 {
		shape = fmt.Sprintf("(%d,)", rows)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", dtype, shape)
	pad := npyHeaderLen - 10 - len(dict) - 1
	h := make([]byte, 0, npyHeaderLen)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(npyHeaderLen-10))
	h = append(h, dict...)
	h = append(h, strings.Repeat(" ", pad)...)
	return append(h, '\n')
}

// WriteFloats appends rows of float32 values; len(v) must be a multiple of
// the column count.
func (n *NpyWriter) WriteFloats(v []float32) error {
	if n.dtype != "<f4" || len(v)%max(n.cols, 1) != 0 {
		return fmt.Errorf("npy: %d float32 values for %s rows of %d", len(v), n.dtype, n.cols)
	}
	n.buf = n.buf[:0]
	for _, x := range v {
		n.buf = binary.LittleEndian.AppendUint32(n.buf, math.Float32bits(x))
	}
	n.rows += len(v) / max(n.cols, 1)
	_, err := n.w.Write(n.buf)
	return err
}

// WriteInts appends int32 values (a 1-D array when cols < 0).
func (n *NpyWriter) WriteInts(v []int32) error {
	if n.dtype != "<i4" {
		return fmt.Errorf("npy: int32 values for %s", n.dtype)
	}
	n.buf = n.buf[:0]
	for _, x := range v {
		n.buf = binary.LittleEndian.AppendUint32(n.buf, uint32(x))
	}
	if n.cols < 0 {
		n.rows += len(v)
	} else {
		n.rows += len(v) / max(n.cols, 1)
	}
	_, err := n.w.Write(n.buf)
	return err
}

// Rows is the number of rows written so far.
func (n *NpyWriter) Rows() int { return n.rows }

// Close writes the final shape into the header and closes the file.
func (n *NpyWriter) Close() error {
	if err := n.w.Flush(); err != nil {
		n.f.Close()
		return fmt.Errorf("npy: %w", err)
	}
	if _, err := n.f.WriteAt(npyHeader(n.dtype, n.rows, n.cols), 0); err != nil {
		n.f.Close()
		return fmt.Errorf("npy: %w", err)
	}
	return n.f.Close()
}

var npyShape = regexp.MustCompile(`'shape': \((\d+),\s*(\d*)\)`)

// ReadNpyFloats reads a 2-D "<f4" .npy file as rows × cols.
func ReadNpyFloats(path string) (data []float32, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head := make([]byte, 10)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:6]) != "\x93NUMPY" {
		return nil, 0, 0, fmt.Errorf("npy: %s is not a .npy file", path)
	}
	dict := make([]byte, binary.LittleEndian.Uint16(head[8:]))
	if _, err := io.ReadFull(r, dict); err != nil {
		return nil, 0, 0, fmt.Errorf("npy: %w", err)
	}
	if !strings.Contains(string(dict), "'<f4'") {
		return nil, 0, 0, fmt.Errorf("npy: %s is not float32", path)
	}
	m := npyShape.FindStringSubmatch(string(dict))
	if m == nil || m[2] == "" {
		return nil, 0, 0, fmt.Errorf("npy: %s is not 2-D", path)
	}
	rows, _ = strconv.Atoi(m[1])
	cols, _ = strconv.Atoi(m[2])
	raw := make([]byte, 4*rows*cols)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, 0, 0, fmt.Errorf("npy: %s: %w", path, err)
	}
	data = make([]float32, rows*cols)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return data, rows, cols, nil
}
