package features

type Feature string

const (
	Alpha Feature = "Alpha"
	Gamma Feature = "Gamma"
	Beta  Feature = "Beta" // want `const block not sorted alphabetically: Beta must come before Gamma`
)

const (
	One   = 1
	Three = 3
)

var defaults = map[Feature]bool{
	Alpha: true,
	Gamma: true,
	Beta:  true, // want `map defaults: keys not sorted alphabetically: Beta must come before Gamma`
}

var sortedDefaults = map[Feature]bool{
	Alpha: true,
	Beta:  true,
}

var notFeatures = map[string]bool{"b": true, "a": true}
