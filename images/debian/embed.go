// Package debian holds the Dockerfile of the Debian sandbox image, embedded
// so the image builder needs no file outside the binary besides the Go
// sources it compiles and scripts/debian-rootfs.sh.
package debian

import _ "embed"

// Dockerfile is images/debian/Dockerfile.
//
//go:embed Dockerfile
var Dockerfile []byte
