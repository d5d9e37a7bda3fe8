package ispell

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// ownCases are the dictionaries of testdata/, written for these tests,
// and what PostgreSQL 15.20 answered for them: each file pair was copied
// into its tsearch_data directory and loaded with CREATE TEXT SEARCH
// DICTIONARY (Template=ispell), want is ts_lexize's result as psql prints
// it ("" for NULL), and variants, for words with several lexemes, is
// to_tsquery's result (quotes dropped) under a configuration mapping
// asciiword and word to the dictionary, which shows the variant numbers:
// the lexemes of one variant are ANDed, variants ORed.
var ownCases = []struct {
	name string // the files are testdata/name.dict and testdata/name.affix
	// dictSum and affixSum begin the files' SHA-256 sums: the answers
	// hold for those files only.
	dictSum, affixSum string
	about             string
	words             []ownCase
}{
	{"garden_ispell", "45b08d6335e02d3a", "1c94cf002b0ee7c6", "the ispell format, compoundwords controlled, a compound-only linking suffix", []ownCase{
		{"garden", "{garden}", ""},
		{"gardens", "{garden}", ""},
		{"house", "{house}", ""},
		{"houses", "{house}", ""},
		{"boat", "{boat}", ""},
		{"boats", "{boat}", ""},
		{"boated", "{boat}", ""},
		{"boating", "{boat}", ""},
		{"sail", "{sail}", ""},
		{"sails", "{sail}", ""},
		{"sailed", "{sail}", ""},
		{"sailing", "{sail}", ""},
		{"plant", "{plant}", ""},
		{"plants", "{plant}", ""},
		{"planted", "{plant}", ""},
		{"planting", "{plant}", ""},
		{"replant", "{plant}", ""},
		{"replanted", "{plant}", ""},
		{"unplant", "{plant}", ""},
		{"unplanted", "{plant}", ""},
		{"replanting", "{plant}", ""},
		{"unreplanted", "", ""},
		{"try", "{try}", ""},
		{"tries", "{try}", ""},
		{"tried", "{try}", ""},
		{"trying", "", ""},
		{"happy", "{happy}", ""},
		{"happies", "", ""},
		{"play", "{play}", ""},
		{"plays", "", ""},
		{"played", "", ""},
		{"playing", "{play}", ""},
		{"replay", "{play}", ""},
		{"replayed", "", ""},
		{"replaying", "{play}", ""},
		{"ground", "{ground}", ""},
		{"grounds", "{ground}", ""},
		{"work", "{work}", ""},
		{"works", "{work}", ""},
		{"worked", "{work}", ""},
		{"working", "{work}", ""},
		{"water", "{water}", ""},
		{"watered", "{water}", ""},
		{"do", "{do}", ""},
		{"undo", "{do}", ""},
		{"undone", "", ""},
		{"lock", "{lock}", ""},
		{"locks", "{lock}", ""},
		{"unlock", "{lock}", ""},
		{"unlocked", "{lock}", ""},
		{"unlocking", "{lock}", ""},
		{"relock", "", ""},
		{"bloom", "{bloom}", ""},
		{"blooms", "{bloom}", ""},
		{"blooming", "{bloom}", ""},
		{"rebloom", "", ""},
		{"rose", "{rose}", ""},
		{"roses", "{rose}", ""},
		{"Rose", "{rose}", ""},
		{"ROSES", "{rose}", ""},
		{"Gardens", "{garden}", ""},
		{"gardenhouse", "{garden,house}", "garden & house"},
		{"boathouse", "{boathouse,boat,house}", "boathouse | boat & house"},
		{"boathouses", "{boathouse,boat,house}", "boathouse | boat & house"},
		{"sailboat", "{sail,boat}", "sail & boat"},
		{"sailboats", "{sail,boat}", "sail & boat"},
		{"playground", "{playground,play,ground}", "playground | play & ground"},
		{"playgrounds", "{playground,play,ground}", "playground | play & ground"},
		{"groundwater", "{ground,water}", "ground & water"},
		{"groundswater", "{ground,water}", "ground & water"},
		{"groundsboat", "{ground,boat}", "ground & boat"},
		{"waterboat", "{water,boat}", "water & boat"},
		{"watergarden", "{water,garden}", "water & garden"},
		{"housework", "{house,work}", "house & work"},
		{"houseboats", "{house,boat}", "house & boat"},
		{"rosegarden", "{rose,garden}", "rose & garden"},
		{"gardenrose", "{garden,rose}", "garden & rose"},
		{"sailboathouse", "{sail,boat,house,sail,boathouse}", "sail & boat & house | sail & boathouse"},
		{"workhouse", "{work,house}", "work & house"},
		{"groundhouse", "{ground,house}", "ground & house"},
		{"houseground", "{house,ground}", "house & ground"},
		{"boathouseboat", "{boat,house,boat,boathouse,boat}", "boat & house & boat | boathouse & boat"},
		{"sailboathouses", "{sail,boathouse,sail,boat,house}", "sail & boathouse | sail & boat & house"},
		{"playgroundwater", "{play,ground,water,playground,water}", "play & ground & water | playground & water"},
		{"waterplayground", "{water,play,ground,water,playground}", "water & play & ground | water & playground"},
		{"s", "", ""},
		{"xyz", "", ""},
		{"a", "", ""},
	}},
	{"kitchen_long", "d6c895c4d39fc8ec", "1360258846a97335", "hunspell, FLAG long with AF aliases, COMPOUNDBEGIN/MIDDLE/END, ONLYINCOMPOUND", []ownCase{
		{"cook", "{cook}", ""},
		{"cooks", "{cook}", ""},
		{"cooked", "{cook}", ""},
		{"cooking", "{cook}", ""},
		{"recook", "{cook}", ""},
		{"recooked", "{cook}", ""},
		{"recooking", "{cook}", ""},
		{"bake", "{bake}", ""},
		{"bakes", "{bake}", ""},
		{"baked", "{bake}", ""},
		{"baking", "{bake}", ""},
		{"rebake", "{bake}", ""},
		{"rebaked", "{bake}", ""},
		{"pan", "{pan}", ""},
		{"pans", "{pan}", ""},
		{"cake", "{cake}", ""},
		{"cakes", "{cake}", ""},
		{"bread", "{bread}", ""},
		{"breads", "{bread}", ""},
		{"knife", "", ""},
		{"knifes", "", ""},
		{"knives", "", ""},
		{"cup", "{cup}", ""},
		{"cups", "{cup}", ""},
		{"board", "{board}", ""},
		{"boards", "{board}", ""},
		{"spoon", "{spoon}", ""},
		{"spoons", "{spoon}", ""},
		{"tea", "{tea}", ""},
		{"teas", "{tea}", ""},
		{"fork", "{fork}", ""},
		{"forks", "{fork}", ""},
		{"cupboard", "", ""},
		{"cupboards", "", ""},
		{"breadknife", "", ""},
		{"breadknives", "", ""},
		{"panspoon", "{pan,spoon}", "pan & spoon"},
		{"teaspoon", "{teaspoon,tea,spoon}", "teaspoon | tea & spoon"},
		{"teaspoons", "{teaspoon,tea,spoon}", "teaspoon | tea & spoon"},
		{"teacup", "{tea,cup}", "tea & cup"},
		{"teacups", "{tea,cup}", "tea & cup"},
		{"teascup", "{tea,cup}", "tea & cup"},
		{"teaspoonboard", "{tea,spoon,board,teaspoon,board}", "tea & spoon & board | teaspoon & board"},
		{"cakepan", "{cake,pan}", "cake & pan"},
		{"cakepans", "{cake,pan}", "cake & pan"},
		{"forkspoon", "{fork,spoon}", "fork & spoon"},
		{"knifespoon", "{knife,spoon}", "knife & spoon"},
		{"knifesspoon", "", ""},
		{"spooncup", "{spoon,cup}", "spoon & cup"},
		{"boardboard", "{board,board}", "board & board"},
		{"breadboard", "{bread,board}", "bread & board"},
		{"breadboards", "{bread,board}", "bread & board"},
		{"teaboard", "{tea,board}", "tea & board"},
		{"teasboard", "{tea,board}", "tea & board"},
		{"cupcake", "", ""},
		{"cupcakes", "", ""},
		{"panbread", "{pan,bread}", "pan & bread"},
		{"knifeboard", "{knife,board}", "knife & board"},
		{"boardknife", "", ""},
		{"pancake", "{pan,cake}", "pan & cake"},
		{"pancakes", "{pan,cake}", "pan & cake"},
		{"spoonboardcup", "{spoon,board,cup}", "spoon & board & cup"},
		{"teaspooncup", "{tea,spoon,cup,teaspoon,cup}", "tea & spoon & cup | teaspoon & cup"},
		{"cupteaspoon", "", ""},
		{"teaspoonspoon", "{tea,spoon,spoon,teaspoon,spoon}", "tea & spoon & spoon | teaspoon & spoon"},
	}},
	{"harbor_num", "219f82dace42f325", "1dbd2c347fcb7d1f", "hunspell, FLAG num, COMPOUNDFORBIDFLAG, regular-expression conditions", []ownCase{
		{"harbor", "{harbor}", ""},
		{"harbors", "{harbor}", ""},
		{"harbored", "{harbor}", ""},
		{"harboring", "{harbor}", ""},
		{"unharbor", "", ""},
		{"unharbored", "{harbor}", ""},
		{"ship", "{ship}", ""},
		{"ships", "{ship}", ""},
		{"shipped", "{ship}", ""},
		{"shipping", "{ship}", ""},
		{"overship", "{ship}", ""},
		{"overships", "{ship}", ""},
		{"overshipped", "{ship}", ""},
		{"yard", "{yard}", ""},
		{"yards", "{yard}", ""},
		{"light", "", ""},
		{"lights", "", ""},
		{"lighted", "", ""},
		{"house", "{house}", ""},
		{"houses", "{house}", ""},
		{"lighthouse", "{lighthouse,light,house}", "lighthouse | light & house"},
		{"lighthouses", "{lighthouse,light,house}", "lighthouse | light & house"},
		{"shipyard", "{shipyard,ship,yard}", "shipyard | ship & yard"},
		{"shipyards", "{shipyard,ship,yard}", "shipyard | ship & yard"},
		{"harborlight", "{harbor,light}", "harbor & light"},
		{"harborslight", "", ""},
		{"lightsharbor", "{light,harbor}", "light & harbor"},
		{"lightship", "{light,ship}", "light & ship"},
		{"lightships", "{light,ship}", "light & ship"},
		{"sea", "{sea}", ""},
		{"seas", "{sea}", ""},
		{"seahouse", "{sea,house}", "sea & house"},
		{"seahouses", "{sea,house}", "sea & house"},
		{"seaship", "{sea,ship}", "sea & ship"},
		{"seaharbor", "{sea,harbor}", "sea & harbor"},
		{"harborsea", "{harbor,sea}", "harbor & sea"},
		{"sail", "{sail}", ""},
		{"sails", "", ""},
		{"sailed", "{sail}", ""},
		{"unsail", "{sail}", ""},
		{"unsailed", "{sail}", ""},
		{"sailing", "{sail}", ""},
		{"unsailing", "{sail}", ""},
		{"sailboat", "{sail,boat}", "sail & boat"},
		{"sailboats", "{sail,boat}", "sail & boat"},
		{"boat", "{boat}", ""},
		{"boats", "{boat}", ""},
		{"city", "{city}", ""},
		{"cities", "{city}", ""},
		{"citylight", "{city,light}", "city & light"},
		{"citylights", "{city,light}", "city & light"},
		{"keys", "{key}", ""},
		{"key", "{key}", ""},
		{"keyship", "", ""},
		{"keyyard", "", ""},
		{"yardkey", "", ""},
		{"houseboat", "{house,boat}", "house & boat"},
		{"boathouse", "{boat,house}", "boat & house"},
		{"lightshouse", "{light,house}", "light & house"},
		{"lighthouseship", "{light,house,ship,lighthouse,ship}", "light & house & ship | lighthouse & ship"},
		{"shiplighthouse", "{ship,light,house,ship,lighthouse}", "ship & light & house | ship & lighthouse"},
		{"seashipyard", "{sea,ship,yard}", "sea & ship & yard"},
		{"shipyardlight", "{ship,yard,light}", "ship & yard & light"},
	}},
	{"cafe_hunspell", "26abd7eeeae45f0b", "8e1febdc446792a1", "hunspell, one-character flags, non-ASCII letters and case folding", []ownCase{
		{"café", "{café}", ""},
		{"cafés", "{café}", ""},
		{"Café", "{café}", ""},
		{"CAFÉ", "{café}", ""},
		{"Cafés", "{café}", ""},
		{"décafé", "{café}", ""},
		{"décafés", "{café}", ""},
		{"Décafé", "{café}", ""},
		{"thé", "{thé}", ""},
		{"thés", "{thé}", ""},
		{"Thé", "{thé}", ""},
		{"THÉ", "{thé}", ""},
		{"lait", "{lait}", ""},
		{"laits", "{lait}", ""},
		{"crème", "{crème}", ""},
		{"crèmes", "{crème}", ""},
		{"crèmebrûlée", "", ""},
		{"brûlée", "{brûlée}", ""},
		{"brûlées", "{brûlée}", ""},
		{"sucre", "{sucre}", ""},
		{"sucres", "{sucre}", ""},
		{"désucre", "{sucre}", ""},
		{"désucres", "{sucre}", ""},
		{"pâte", "{pâte}", ""},
		{"pâtes", "{pâte}", ""},
		{"pâtefruit", "{pâte,fruit}", "pâte & fruit"},
		{"fruitpâte", "{fruit,pâte}", "fruit & pâte"},
		{"fruit", "{fruit}", ""},
		{"fruits", "{fruit}", ""},
		{"laitcrème", "{lait,crème}", "lait & crème"},
		{"crèmelait", "{crème,lait}", "crème & lait"},
		{"laitsucre", "{lait,sucre}", "lait & sucre"},
		{"sucrelait", "{sucre,lait}", "sucre & lait"},
		{"fruitlait", "{fruit,lait}", "fruit & lait"},
		{"caféthé", "", ""},
		{"beau", "", ""},
	}},
}

type ownCase struct{ word, want, variants string }

// TestOwnDictionaries checks Lexize on the dictionaries of testdata/
// against PostgreSQL's answers.
func TestOwnDictionaries(t *testing.T) {
	for _, dc := range ownCases {
		t.Run(dc.name, func(t *testing.T) {
			dictPath := filepath.Join("testdata", dc.name+".dict")
			affixPath := filepath.Join("testdata", dc.name+".affix")
			for path, sum := range map[string]string{dictPath: dc.dictSum, affixPath: dc.affixSum} {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprintf("%x", sha256.Sum256(data)); !strings.HasPrefix(got, sum) {
					t.Fatalf("%s changed (sha256 %s): ask PostgreSQL again and update the table", path, got)
				}
			}
			d, err := loadFiles(dictPath, affixPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range dc.words {
				ls := d.Lexize(c.word)
				if got := formatLexemes(ls); got != c.want {
					t.Errorf("Lexize(%q) = %s, want %s", c.word, got, c.want)
					continue
				}
				if c.variants != "" {
					if got := formatVariants(ls); got != c.variants {
						t.Errorf("Lexize(%q) variants %s, want %s", c.word, got, c.variants)
					}
				}
			}
		})
	}
}

// ownErrors are files PostgreSQL 15.20 rejects (or, with code "",
// accepts), each written into its tsearch_data directory and given to
// CREATE TEXT SEARCH DICTIONARY (Template=ispell, DictFile, AffFile);
// code and message are its error's SQLSTATE and message.
var ownErrors = []struct {
	name, dict, affix, code, message string
}{
	{"flag_value", "word\n", "FLAG UTF-8\nSFX A Y 1\nSFX A 0 s .\n", "F0000", "Ispell dictionary supports only \"default\", \"long\", and \"num\" flag values"},
	{"mixed_formats", "word\n", "suffixes\nflag *S:\n    . > S\nSFX A Y 1\n", "F0000", "affix file contains both old-style and new-style commands"},
	{"af_zero", "word\n", "AF 0\nSFX A Y 1\n", "F0000", "invalid number of flag vector aliases"},
	{"af_too_many", "word\n", "SFX A Y 1\nAF 1\nAF A\nAF B\n", "F0000", "number of aliases exceeds specified number 1"},
	{"af_too_few", "word/1\n", "SFX A Y 1\nAF 2\nAF A\n", "F0000", "number of aliases is less than specified number 2"},
	{"af_unknown_alias", "word/7\n", "SFX A Y 1\nAF 2\nAF A\nAF B\n", "F0000", "invalid affix alias \"7\""},
	{"af_forward_alias", "word/1\n", "AF 2\nAF A\nSFX A Y 1\nSFX A 0 s/2 .\nAF B\n", "F0000", "invalid affix alias \"2\""},
	{"ispell_syntax", "word\n", "suffixes\nflag S:\n    . > S1\n", "F0000", "syntax error"},
	{"regex_parens", "word\n", "SFX A Y 1\nSFX A 0 s a(b\n", "2201B", "invalid regular expression: parentheses () not balanced"},
	{"regex_brackets", "word\n", "SFX A Y 1\nSFX A 0 s [a\n", "2201B", "invalid regular expression: brackets [] not balanced"},
	{"regex_count", "word\n", "SFX A Y 1\nSFX A 0 s a{300}\n", "2201B", "invalid regular expression: invalid repetition count(s)"},
	{"num_compound_flag", "word\n", "FLAG num\nCOMPOUNDFLAG x\n", "F0000", "invalid affix flag \"x\""},
	{"num_out_of_range", "word/70000\n", "FLAG num\nCOMPOUNDFLAG 1\n", "F0000", "affix flag \"70000\" is out of range"},
	{"num_bad_char", "word/1;2\n", "FLAG num\nCOMPOUNDFLAG 1\n", "F0000", "invalid character in affix flag \";2\""},
	{"af_huge", "word\n", "SFX A Y 1\nAF 200000000\n", "XX000", "invalid memory alloc request size 1600000008"},
	{"af_not_number", "word/x\n", "SFX A Y 1\nAF 1\nAF A\n", "F0000", "invalid affix alias \"x\""},
	{"regex_ok", "word\n", "SFX A Y 1\nSFX A 0 s [^a]b*\n", "", ""},
	{"alias_in_rule", "word\n", "SFX A Y 1\nAF 1\nAF B\nSFX A 0 s/B .\n", "F0000", "invalid affix alias \"B\""},
	{"num_rule_flag", "word\n", "FLAG num\nCOMPOUNDFLAG 5\nSFX 1 Y 1\nSFX 1 0 s/x .\n", "F0000", "invalid affix flag \"x\""},
	{"long_odd", "word/abc\n", "FLAG long\nCOMPOUNDFLAG ab\n", "F0000", "invalid affix flag \"c\" with \"long\" flag value"},
	{"compoundflag_empty", "word\n", "COMPOUNDFLAG\n", "F0000", "syntax error"},
	{"dict_encoding", "word\nw\xffrd\n", "SFX A Y 1\n", "22021", "invalid byte sequence for encoding \"UTF8\": 0xff"},
	{"affix_encoding", "word\n", "SFX A Y 1\nSFX A 0 \xc3\n", "22021", "invalid byte sequence for encoding \"UTF8\": 0xc3 0x0a"},
	// A NUL byte ends what fgets read, so the line runs on into the next.
	{"affix_nul", "word\n", "SFX A Y 1\nSFX A 0 s\x00 .\nSFX A 0 \xff .\n", "22021", "invalid byte sequence for encoding \"UTF8\": 0xff"},
}

// TestOwnErrors checks Load's errors against PostgreSQL's.
func TestOwnErrors(t *testing.T) {
	for _, c := range ownErrors {
		_, err := Load(strings.NewReader(c.dict), strings.NewReader(c.affix))
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.code == "":
		case err == nil:
			t.Errorf("%s: loaded, want %s %q", c.name, c.code, c.message)
		case string(pgerr.CodeOf(err)) != c.code || err.Error() != c.message:
			t.Errorf("%s: %s %q, want %s %q", c.name, pgerr.CodeOf(err), err, c.code, c.message)
		}
	}
}

// TestConcurrentLexize runs Lexize from several goroutines on one
// Dictionary (run it with -race): the answers must be the serial ones.
func TestConcurrentLexize(t *testing.T) {
	dc := ownCases[0]
	d, err := loadFiles(filepath.Join("testdata", dc.name+".dict"), filepath.Join("testdata", dc.name+".affix"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			for _, c := range dc.words {
				if got := formatLexemes(d.Lexize(c.word)); got != c.want {
					done <- fmt.Sprintf("Lexize(%q) = %s, want %s", c.word, got, c.want)
					return
				}
			}
			done <- ""
		}()
	}
	for g := 0; g < 4; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
