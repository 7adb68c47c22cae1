package sandbox

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Where an environment's files lie in a sandbox's state folder: tasks lay
// them there by these paths, and the toolbox reads them from there.
const (
	// DBFile is the records database (a JSON array of DBRecord).
	DBFile = "db/records.json"
	// WebDir holds one file per web page (see PageFile).
	WebDir = "web"
)

// PageFile maps a URL to its file name under WebDir.
func PageFile(url string) string {
	u := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(url), "https://"), "http://")
	u = strings.TrimSuffix(u, "/")
	return strings.NewReplacer("/", "_", "?", "_", "&", "_", "..", "_").Replace(u) + ".txt"
}

// Join resolves a slash-separated path rel inside dir, refusing one that
// names dir itself; ".." cannot climb out of dir.
func Join(dir, rel string) (string, error) {
	clean := path.Clean("/" + strings.TrimSpace(rel))
	if clean == "/" {
		return "", fmt.Errorf("empty path")
	}
	return filepath.Join(dir, filepath.FromSlash(clean[1:])), nil
}
