package funcs

func registerTSRank() {}
