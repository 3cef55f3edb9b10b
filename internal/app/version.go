package app

import (
	"runtime/debug"
	"strings"
)

// Version names this build of the portal: the module's version and, when the
// build knows it, the commit ("payportal v1.2.0", "payportal devel 3f2a9c1").
// It is sent to the processor as appVersion.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "payportal"
	}
	v := strings.Trim(info.Main.Version, "()")
	if v == "" {
		v = "devel"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 7 {
			v += " " + s.Value[:7]
		}
	}
	return "payportal " + v
}
