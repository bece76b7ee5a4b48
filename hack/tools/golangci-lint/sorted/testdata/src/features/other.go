package features

// Not in the configured files: never checked.
const (
	Zulu   = "z"
	Alpha2 = "a"
)
