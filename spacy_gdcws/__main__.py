from spacy_gdcws.cli import run

if __name__ == "__main__":
    run()
