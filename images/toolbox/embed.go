// Package toolbox holds the Dockerfile of the toolbox image, embedded so the
// image builder needs no file outside the binary besides the Go sources it
// compiles.
package toolbox

import _ "embed"

// Dockerfile is images/toolbox/Dockerfile.
//
//go:embed Dockerfile
var Dockerfile []byte
