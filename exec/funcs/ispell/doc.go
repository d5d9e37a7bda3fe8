// Package ispell is PostgreSQL 15's Ispell text search dictionary, the
// ispell template of CREATE TEXT SEARCH DICTIONARY (PostgreSQL's spell.c,
// regis.c and dict_ispell.c): Load reads a dictionary file and an affix
// file, and Lexize reduces a word to its normal forms, splitting compound
// words into their parts. It gives PostgreSQL's answers: the same lexemes
// in the same order with the same variant numbers, and for files
// PostgreSQL rejects, its error with its message and SQLSTATE. Stop words
// are the caller's business.
//
// # Files
//
// The dictionary file has a word a line, lower-cased on reading, with its
// flags after a "/": "book/GJUS". How flags are written depends on the
// affix file.
//
// The affix file is read in the ispell format until a line shows it is in
// the hunspell (MySpell) format, as PostgreSQL decides:
//
//   - ispell: "prefixes" and "suffixes" sections of "flag X:" groups (with
//     "*" for cross product, "~" for compound-only) of rules
//     "mask > [-strip,]add"; "compoundwords controlled X" names the flag
//     of words that may form compounds. Flags are single characters.
//   - hunspell: "PFX"/"SFX" headers and rules, "FLAG long" (two-character
//     flags), "FLAG num" (comma-separated numbers up to 65536) or the
//     default single characters, "AF" flag-set aliases, and the
//     compounding commands COMPOUNDFLAG, COMPOUNDBEGIN, COMPOUNDMIDDLE,
//     COMPOUNDLAST (or COMPOUNDEND), ONLYINCOMPOUND, COMPOUNDPERMITFLAG
//     and COMPOUNDFORBIDFLAG. Other commands (SET, TRY, REP, COMPOUNDMIN,
//     ...) are ignored, as PostgreSQL ignores them.
//
// Both files are UTF-8; character classes and case folding are those of a
// database whose LC_CTYPE is a UTF-8 locale such as C.UTF-8. A rule's
// condition is a "regis" (letters and bracket expressions) or a
// PostgreSQL regular expression, run here on Go's regexp; the few
// constructs RE2 lacks (back-references, lookaround, \m and \M) make Load
// fail with feature_not_supported where PostgreSQL would accept them.
//
// # Invariants
//
//  1. A Dictionary is immutable once Load returns it and is safe for
//     concurrent use; Load keeps nothing of its readers.
//  2. Lexize returns a new slice each call, which the caller owns; its
//     words may share memory with the input (or its lower-cased copy),
//     never with the Dictionary. With a dictionary that has no compounding
//     commands, Lexize allocates its result (the slice, and each form
//     that is not the word itself) and, for a word not in lower case, the
//     folded copy: nothing for an unknown lower-case word. Splitting
//     compound words allocates as it goes.
//  3. Lexize's order is PostgreSQL's: the word itself if the dictionary
//     has it, then what prefix rules give, then suffix rules, then suffix
//     and prefix rules together (rules tried in PostgreSQL's sort order,
//     shorter affixes first), each form once unless it repeats the one
//     before; these are variants 1, 2, .... Then, if the affix file allows
//     compounds, every way of cutting the word into parts, in PostgreSQL's
//     order, once per normal form of the last part, all parts of one way
//     sharing the next variant number. At most 1023 lexemes are returned;
//     once that many are gathered the compound search stops, where
//     PostgreSQL goes on (to the same answer, unless a later way would
//     fail as in 4), for a long word of short parts exponentially long.
//  4. Where PostgreSQL fails during a lookup (a flag set it reads is
//     malformed after the flags it could match; a compound word split
//     inside a multibyte character meets a rule's condition), Lexize
//     returns nil, as it does for an unknown word.
//  5. Load's errors come in PostgreSQL's order: the dictionary file's
//     encoding, then the affix file line by line (a hunspell file's
//     compounding flags once its FLAG mode is known), then the words' aliases
//     in file order, then their flag sets in sorted word order, then the
//     rules' flags in sorted rule order. Like CREATE TEXT SEARCH
//     DICTIONARY with DictFile before AffFile, the dictionary file is read
//     first. Errors carry no CONTEXT line, since Load does not know the
//     file names.
package ispell
