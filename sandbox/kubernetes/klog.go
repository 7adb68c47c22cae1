package kubernetes

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"github.com/hashicorp/go-hclog"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// clientLogs makes client-go's own logging (klog) and its unhandled errors
// (an exec stream torn down when a sandbox closes, a ping on a closed
// connection) debug messages of the first backend's logger instead of lines
// on stderr.
var clientLogs sync.Once

func routeClientLogs(log hclog.Logger) {
	clientLogs.Do(func() {
		l := log.Named("client-go")
		utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
			func(_ context.Context, err error, msg string, kv ...any) {
				l.Debug("client error", append([]any{"error", err, "msg", msg}, kv...)...)
			},
		}
		klog.SetLogger(logr.New(&hclogSink{log: l}))
	})
}

// hclogSink is a logr sink over hclog, at debug level.
type hclogSink struct {
	log hclog.Logger
}

func (s *hclogSink) Init(logr.RuntimeInfo)  {}
func (s *hclogSink) Enabled(level int) bool { return s.log.IsDebug() }
func (s *hclogSink) Info(level int, msg string, kv ...any) {
	s.log.Debug(msg, kv...)
}
func (s *hclogSink) Error(err error, msg string, kv ...any) {
	s.log.Debug(msg, append([]any{"error", err}, kv...)...)
}
func (s *hclogSink) WithValues(kv ...any) logr.LogSink {
	return &hclogSink{log: s.log.With(kv...)}
}
func (s *hclogSink) WithName(name string) logr.LogSink {
	return &hclogSink{log: s.log.Named(name)}
}
