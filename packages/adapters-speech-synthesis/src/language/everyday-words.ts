/**
 * The words of greetings, thanks, farewells, yes and no, please and sorry, cheers and welcome in the
 * common Latin-script languages, written for this project (lower case; a phrase is listed as its
 * words, so "s'il vous plaît" is "s", "il", "vous", "plaît"). They are what people say first to a
 * voice, and what an n-gram detector knows least: "Hola!", "Ciao!" and "Hej!" have too few letters
 * for eld to score them at all. A text made only of one language's words here is that language
 * (docs/speech.md, "Which language the default voice speaks"). Words that are also common English
 * ("no", "pardon", "super") change nothing: a text made only of common English words is English
 * before these are looked at.
 */
export const EVERYDAY_WORDS: Readonly<Record<string, readonly string[]>> = {
  fr: words(`bonjour bonsoir salut coucou allô merci beaucoup oui non ouais pardon excusez excuse moi désolé
    désolée enchanté enchantée bienvenue bienvenu bonne bon nuit journée soirée appétit voyage chance
    au revoir à bientôt demain tout plus tard santé félicitations bravo d accord s il vous te plaît
    voilà volontiers adieu ça va comment monsieur madame mademoiselle chéri chérie`),
  de: words(`hallo hallöchen guten gute morgen tag abend nacht danke schön sehr vielen dank bitte ja nein
    jawohl tschüss tschüs tschau servus moin grüß gott prost willkommen herzlich entschuldigung
    entschuldige verzeihung genau natürlich klar gerne gern auf wiedersehen wiederhören bis bald
    später herzlichen glückwunsch alles gesundheit mahlzeit wie geht es dir ihnen toll doch stimmt
    schlaf schlafen sie`),
  es: words(`hola buenos buenas buen días tardes noches gracias muchas muchísimas gusto sí por favor perdón
    perdona disculpe disculpa lo siento adiós hasta luego pronto mañana vale claro bienvenido
    bienvenida bienvenidos felicidades enhorabuena salud de nada qué tal cómo estás está bien genial
    vamos venga oye señor señora provecho chao muy igualmente`),
  it: words(`ciao salve buongiorno buonasera buonanotte buona buon giornata serata notte grazie mille tante
    prego sì per favore piacere scusi scusa scusate mi dispiace arrivederci arrivederla presto a
    dopo domani benvenuto benvenuta benvenuti auguri complimenti salute cin certo va bene basta
    andiamo dai come stai sta bravo brava perfetto ecco allora tutto signore signora appetito
    ottimo`),
  pt: words(`olá oi bom boa dia tarde noite obrigado obrigada muito muita sim não por favor desculpe desculpa
    com licença tchau adeus até logo amanhã breve mais bem vindo vinda vindos parabéns saúde tudo
    valeu beleza claro tá está certo legal saudade saudades de nada como vai você senhor senhora
    perdão combinado`),
  nl: words(`hoi hallo hai dag goedemorgen goedemiddag goedenavond goedenacht welterusten dank je u wel
    bedankt alsjeblieft alstublieft ja nee doei tot ziens straks zo morgen later welkom gefeliciteerd
    proost gezondheid gezellig lekker prima oké graag gedaan eet smakelijk hoe gaat het met goed
    mooi natuurlijk meneer mevrouw fijne avond succes`),
  pl: words(`cześć dzień dobry dobra dobranoc dobrze dziękuję dziękujemy dzięki bardzo tak nie proszę
    przepraszam do widzenia zobaczenia jutra witaj witajcie witam smacznego na zdrowie gratulacje
    wszystkiego najlepszego oczywiście jasne pa siema`),
  sv: words(`hej hejsan hallå tjena tja god morgon dag kväll natt tack så mycket ja nej förlåt ursäkta
    varsågod välkommen skål grattis då vi ses snart imorgon självklart absolut ingen orsak okej bra
    trevligt lycka till hur mår du`),
  tr: words(`merhaba selam selamlar günaydın iyi akşamlar geceler günler teşekkürler teşekkür ederim sağ ol
    olun lütfen evet hayır tamam hoşça kal kalın güle görüşürüz hoş geldiniz geldin afiyet olsun
    tebrikler kolay gelsin nasılsın nasılsınız şerefe özür dilerim affedersiniz peki tabii elbette`),
  da: words(`hej hejsa goddag godmorgen godaften godnat tak mange ja nej undskyld farvel vi ses velkommen
    skål tillykke selvfølgelig værsgo hyggeligt`),
  no: words(`hei hallo god morgen dag kveld natt takk tusen ja nei unnskyld beklager ha det bra velkommen
    skål gratulerer selvfølgelig vær så snill adjø`),
  fi: words(`hei moi moikka terve huomenta hyvää päivää iltaa yötä kiitos paljon kyllä ei joo anteeksi
    näkemiin nähdään heippa tervetuloa kippis onnea ole hyvä`),
  cs: words(`ahoj dobrý den dobré ráno odpoledne večer dobrou noc děkuji děkuju díky ano ne prosím
    promiňte promiň na shledanou nashledanou čau vítejte zdraví gratuluji jasně dobře`),
  ro: words(`bună ziua dimineața seara noapte mulțumesc mersi da nu vă rog te scuze scuzați îmi pare rău la
    revedere pa salut bine ați venit noroc felicitări sigur`),
  hu: words(`szia sziasztok helló jó napot reggelt estét éjszakát köszönöm köszi igen nem kérem kérlek
    bocsánat elnézést viszontlátásra viszlát isten hozott egészségedre gratulálok persze rendben`),
  ca: words(`hola bon bona dia tarda nit vespre gràcies moltes sí si us plau perdó adéu fins aviat després
    demà benvingut benvinguda salut felicitats d acord molt bé`),
  hr: words(`bok dobar dan jutro dobro večer laku noć hvala lijepa da ne molim oprostite izvolite doviđenja
    vidimo se dobrodošli živjeli čestitam naravno`),
};

function words(list: string): readonly string[] {
  return list.normalize('NFC').split(/\s+/).filter(Boolean);
}

/** Each word's languages: "hola" is Spanish and Catalan, "hei" Norwegian and Finnish. */
export function everydayWordLanguages(lexicon = EVERYDAY_WORDS): ReadonlyMap<string, ReadonlySet<string>> {
  const byWord = new Map<string, Set<string>>();
  for (const [language, list] of Object.entries(lexicon))
    for (const word of list) {
      const languages = byWord.get(word) ?? new Set<string>();
      languages.add(language);
      byWord.set(word, languages);
    }
  return byWord;
}
