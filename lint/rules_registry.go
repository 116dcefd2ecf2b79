package lint

var registryRules = []*Rule{}
