/* The Chinese edition's search: Sphinx (9.0) writes `window.Stemmer = ChineseStemmer;` into
   language_data.js for language zh_CN, but ships only the English stemmer for it
   (sphinx/search/zh.py: js_stemmer_rawcode = 'english-stemmer.js'), so ChineseStemmer is
   undefined there and search finds nothing.  Chinese words are cut by jieba at build time and
   need no stemming; Latin words in a query are stemmed as the index stemmed them (English).
   Loaded before language_data.js; EnglishStemmer is looked up only when search runs. */
var ChineseStemmer = function () { return new EnglishStemmer(); };
