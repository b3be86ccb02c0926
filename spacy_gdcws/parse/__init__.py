"""The second stage, `gdcws_parser`: tagging (UPOS, XPOS), dependency parsing and entities (PER, LOC,
ORG) on the segmenter's words with one biaffine model. Its files, by floor (docs/architecture.md):

- here: `component.py` (BiaffineParser: predict decodes, set_annotations writes, update,
  get_loss, initialize), `factory.py` (the factory and its default config, the one home of its
  values), `loss.py` (the loss and its gradient, the relation call's joined), `persist.py` (bytes and
  folders through one path, verified on load);
- `ml/parser.py` (the registered model `spacy_gdcws.BiaffineParser.v3`: ParseBatch -> scores, chosen
  arcs -> relations); `legacy/parser.py` (`BiaffineParser.v1`, output rows in the config; `.v2`, no
  entity tagger);
- `nn/word_parser.py` (the torch module: features -> BiLSTM -> biaffine scorers and the entity
  tagger), `nn/tag_crf.py` (the entity tags' CRF loss), `nn/bilstm.py` (BiLSTMs over padded runs),
  `nn/dropout.py`;
- `decoding/trees.py` (Eisner and Chu-Liu-Edmonds, one root; relations of decoded arcs),
  `decoding/eisner_jit.py` (Eisner compiled by numba, where it is installed), `decoding/entities.py`
  (IOB2 Viterbi), `decoding/units.py` (the words that are addresses);
- `data/features/words.py` (docs of words -> ParseBatch, hashed rows cached per word),
  `data/features/gold.py` (the gold aligned to the predicted words, once per example),
  `data/features/hashing.py` (the hashed rows), `data/sentences.py` (sentences and whitespace);
- `readers/segmented.py` (its training examples on the frozen segmenter's words), `readers/iob2.py` and
  `treebanks/entities.py` (its entities' training data),
  `eval/parse_scorer.py` (its registered scorer), `glossary.py` (what its tags and relations mean).
"""
