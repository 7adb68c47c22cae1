package pdfdoc

import "time"

func mustTime() time.Time { return time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC) }
