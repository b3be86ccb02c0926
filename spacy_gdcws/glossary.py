"""What the tags, relations and entity types `gdcws_parser` writes mean: the XPOS of UD Chinese GSD (`token.tag_`,
Google's Chinese tag set: PTB-like, with bound nouns, affixes and Chinese function words) and the UD
relations with their Chinese subtypes (`token.dep_`), for `spacy.explain` where spaCy's glossary lacks
them (`register`, run when the parser's factory loads) and for `docs/pos-and-dependencies.md`.

UPOS (`token.pos_`) is UD's, which spaCy's glossary already explains.
"""
from typing import Dict

#: GSD's XPOS (`token.tag_`): the tags of UD_Chinese-GSDSimp, with an example of each
XPOS: Dict[str, str] = {
    "AS": "aspect marker (了, 着, 过)",
    "BB": "passive or disposal marker (被, 把, 将)",
    "CC": "coordinating conjunction (和, 或)",
    "CD": "cardinal number (三, 1957)",
    "DEC": "的 or 之 after a relative clause or a possessor",
    "DEV": "地 or 得 after an adverbial or before a complement",
    "DT": "determiner (这, 各)",
    "EC": "enumeration comma (、)",
    "FW": "foreign word (Latin script)",
    "HYPH": "hyphen",
    "IN": "preposition or subordinating conjunction (在, 因为)",
    "JJ": "adjective (重要)",
    "MD": "modal verb (可以, 会)",
    "NN": "common noun",
    "NNB": "bound noun: measure word, classifier, unit (个, 年, 米)",
    "NNP": "proper noun",
    "PFA": "prefix (大, 副, 总)",
    "PRD": "demonstrative or reflexive pronoun (此, 这样, 自己)",
    "PRP": "personal pronoun (我, 他们)",
    "RB": "adverb (很, 不)",
    "SFA": "adjectival suffix",
    "SFN": "nominal suffix (人, 市, 者)",
    "SFV": "verbal suffix (化)",
    "UH": "interjection or sentence-final particle (吗, 呢)",
    "VC": "copula (是, 为)",
    "VV": "verb",
    "WP": "interrogative pronoun (谁)",
    "ADD": "address: a URL, an e-mail address or a file path (GSD's; spaCy's own glossary says only 'email')",
    "(": "opening bracket or title mark (（, 《)",
    ")": "closing bracket or title mark (）, 》)",
    "``": "opening quotation mark (“)",
    "''": "closing quotation mark (”)",
    ",": "comma",
    ".": "sentence-final mark (。, ？, ！)",
    ":": "colon or semicolon",
    "...": "ellipsis",
    "/": "other punctuation or symbol (·, /)",
}

#: UD relations and subtypes the parser writes (`token.dep_`; the root is spaCy's ROOT, UD's root)
RELATIONS: Dict[str, str] = {
    "ROOT": "root of the sentence (UD's root)",
    "acl:relcl": "relative clause modifier",
    "aux:pass": "passive auxiliary (被)",
    "case": "case marker, adposition or localizer",
    "clf": "classifier (个 in 一个人)",
    "compound:ext": "extent or degree complement marker (得)",
    "csubj:pass": "clausal passive subject",
    "discourse:sp": "sentence-final particle",
    "flat:foreign": "foreign words of one name or expression",
    "flat:name": "parts of a name after its first",
    "mark:adv": "adverbial marker (地)",
    "mark:rel": "relative clause marker (的)",
    "nmod:tmod": "temporal modifier (今天, 1957年)",
    "nsubj:pass": "passive nominal subject",
    "obl:patient": "object of 把 or 将 (disposal construction)",
}


#: the entity types `gdcws_parser` writes (`doc.ents`), as Universal NER defines them (Mayhew et al. 2024).
#: spaCy's glossary explains these names by OntoNotes' types, whose LOC leaves countries and cities out
#: (OntoNotes' GPE): LOC's meaning here says both, so that it is true in a process that also runs an
#: OntoNotes pipeline (`en_core_web_*`)
ENTITIES: Dict[str, str] = {
    "PER": "person: a named person or family, real or fictional (习近平, 古特雷斯)",
    "LOC": "location: a named place; in Universal NER (zh_gdcws) countries, cities and regions included "
           "(北京, 中国, 长江), which OntoNotes (en_core_web_*) tags GPE",
    "ORG": "organisation: a named company, institution, team, party or government body (联合国, 北京大学)",
}


def register() -> None:
    """Add the tags, relations and entity types spaCy's glossary lacks to it, so that `spacy.explain`
    knows them; spaCy's own entries are left as they are, but ADD's and LOC's (below)."""
    from spacy.glossary import GLOSSARY

    for term, meaning in {**XPOS, **RELATIONS}.items():
        GLOSSARY.setdefault(term, meaning)
    # ADD: spaCy's entry ("email", the English tag set's) says less than GSD's tag, which the parser
    # writes for every address; the wider meaning holds for both
    GLOSSARY["ADD"] = XPOS["ADD"]
    # the entity types: spaCy's PER and ORG fit UNER's; its LOC ("Non-GPE locations") does not
    for term, meaning in ENTITIES.items():
        GLOSSARY.setdefault(term, meaning)
    GLOSSARY["LOC"] = ENTITIES["LOC"]
