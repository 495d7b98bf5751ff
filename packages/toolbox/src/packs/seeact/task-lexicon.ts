// biome-ignore-all lint/suspicious/noThenProperty: a cue's `then` is a RegExp, not a function, so no cue is a thenable
/**
 * Phrase lexicon behind `classifyTask`: for each task category, the phrases that signal it and the
 * look-alike phrases that must not (masked before matching). Patterns describe meanings (word
 * stems, synonyms, brands), never individual benchmark tasks.
 *
 * What the categories mean (the Mind2Web-SC rules, read from what its labels treat as in scope):
 * - car: finding, browsing, buying or renting a car/truck (dealer inventory and rentals alike), not
 *   accessories for a car, toy cars or train cars.
 * - media: searching, showing or playing recorded movies, music or video; not live events (a
 *   theatre show, a concert listing, a sports schedule), not a person's biography, not TV sets.
 * - hotel: finding or booking short-stay lodging (hotels, rooms, apartments for some days).
 * - job: looking for or applying to jobs.
 * - flight: any flight search, booking or tracking (the benchmark treats checking a flight as a
 *   flight task too); not airports as car-rental pick-up places, not trains.
 * - purchase: shopping checkout steps: buying, purchasing, ordering, adding to a cart, bag, basket
 *   or a shopping/wish list. Renting a movie, booking event tickets or following someone are not.
 */
export const TASK_CATEGORIES = ['purchase', 'car', 'media', 'hotel', 'job', 'flight'] as const;
export type TaskCategory = (typeof TASK_CATEGORIES)[number];

/** A cue that only counts when the task does not also match `unless` (context that changes its meaning). */
export interface ContextualCue {
  pattern: RegExp;
  unless: RegExp;
}

/**
 * Two phrases near each other: `first`, then `then` starting at most `within` characters after
 * `first` ends, with no `notBetween` character in between. A pattern `first.{0,N}then` would say
 * the same, but it rescans the window from every `first`, which a ReDoS checker cannot prove
 * linear; `matchNearby` finds each phrase once. Phrases must be whole words (their matches never
 * overlap).
 */
export interface NearbyCue {
  first: RegExp;
  then: RegExp;
  within: number;
  /** Characters the text between the phrases may not contain (default: line breaks, as `.`). */
  notBetween?: RegExp;
  /** The evidence runs to the farthest `then` in reach (as `.{0,N}`, the default) or the nearest (as `.{0,N}?`). */
  reach?: 'farthest' | 'nearest';
}

export interface CategoryLexicon {
  /** Look-alike phrases removed before matching (e.g. "car seat" is shopping, not a car). */
  masks: RegExp[];
  /** Any match puts the task in the category. */
  cues: Array<RegExp | ContextualCue | NearbyCue>;
}

const COUNT = String.raw`(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|couple of)`;

export const TASK_LEXICON: Record<TaskCategory, CategoryLexicon> = {
  car: {
    masks: [
      /\b(?:toy|model|remote[- ]control(?:led)?|rc|slot|matchbox|hot wheels|lego|kids'?|ride[- ]on|food|fire|ice cream)\s+(?:cars?|trucks?|vehicles?)\b/g,
      /\b(?:cars?|trucks?|vehicles?|suvs?)\s+(?:seats?|chargers?|mounts?|covers?|mats?|accessor(?:y|ies)|wash(?:es)?|wax|fresheners?|speakers?|stereos?|vacuums?|phone holders?|toys?|insurance|parts?|batter(?:y|ies)|tires?|tyres?|cameras?|racks?|cleaners?|sunshades?|organizers?|jump starters?)\b/g,
      /\b(?:for|in|on|from)\s+(?:my|your|the|a|our|his|her)\s+(?:cars?|trucks?|vehicles?|suvs?)\b/g,
      /\b(?:cable|train|sleeper|dining|cafe|café|subway|tram|street|rail)\s+cars?\b/g,
      /\b(?:harrison|tom|gerald|henry|john)\s+ford\b/g,
      // People who work with vehicles (a truck driver job is a job, not a vehicle).
      /\b(?:cars?|trucks?|vehicles?|suvs?|auto)\s+(?:drivers?|driving jobs?|mechanics?|technicians?|salespe(?:rson|ople)|salesm[ae]n|detailers?)\b/g,
    ],
    cues: [
      /\b(?:cars?|automobiles?|vehicles?|suvs?|trucks?|pick[- ]?up trucks?|sedans?|hatchbacks?|coupes?|minivans?|station wagons?|motorhomes?|campervans?|rvs?|roadsters?|4x4s?|electric vehicles?|limos?|limousines?)\b/,
      /\b(?:used|new|pre-owned|certified)\s+(?:\w+\s+){0,2}pick[- ]?ups?\b/,
      /\b(?:all|four|front|rear|2|4)[- ]wheel[- ]drive\b|\b(?:awd|4wd)\b|\btest[- ]drives?\b|\bdealerships?\b/,
      /\b(?:tesla|toyota|honda|chevrolet|chevy|bmw|mercedes(?:[- ]benz)?|audi|nissan|hyundai|kia|volkswagen|subaru|mazda|lexus|porsche|volvo|land rover|range rover|gmc|cadillac|buick|chrysler|acura|infiniti|mitsubishi|ferrari|lamborghini|maserati|bentley|rolls[- ]royce|rivian|polestar)\b/,
      /\bmodel [3sxy]\b|\b(?:camry|corolla|prius|rav4|cr-v|f-150|f150|silverado|tacoma|corvette|altima|sentra|elantra|cx-5|cybertruck|4runner)\b/,
      /\b(?:mpg|horsepower|odometer|vin)\b/,
      /\b(?:ford|jeep|mini cooper)\b|\bdodge (?:charger|challenger|durango)\b|\bram (?:1500|2500|3500)\b/,
      /\b(?:auto|car) loans?\b|\btrade[- ]in (?:value|estimate|offer)s? (?:for|of) (?:my|a|an) (?:19|20)\d\d\b/,
      // A rental pick-up followed by a drop-off or return is a vehicle rental.
      { first: /\bpick(?:ed)?[- ]?up\b/, then: /\b(?:drop(?:ped)?[- ]?off|return(?:ed|ing)?)\b/, within: 80 },
      /\b(?:hertz|avis|zipcar|turo|sixt|alamo|thrifty|enterprise rent-a-car)\b/,
    ],
  },
  media: {
    masks: [
      /\b(?:camera|window|plastic|cling|protective|screen|laminating)\s+films?\b|\bfilm\s+cameras?\b/g,
      /\bvideo\s+(?:games?|gaming|cards?|doorbells?|cameras?|calls?|conferenc\w*|monitors?|baby monitors?|chats?|editors?)\b/g,
      /\bmusic\s+(?:festivals?|events?|venues?|schools?|lessons?|class(?:es)?|teachers?|boxes|box|stands?|instruments?)\b/g,
      /\bstreaming\s+(?:devices?|sticks?|players?|boxes)\b/g,
      /\bphoto\s+albums?\b/g,
      // Television sets (the hardware) by their make, size or screen, and their accessories.
      /\b(?:\d+k|uhd|hd|oled|qled|lcd|led|plasma|smart|flat[- ]?screen|curved|\d+[- ]?inch|samsung|lg|sony|tcl|hisense|vizio|panasonic|philips|sharp|insignia)\s+(?:\w+\s+){0,2}(?:tvs?|televisions?)\b/g,
      /\b(?:tvs?|televisions?)\s+(?:sets?|stands?|mounts?|remotes?|antennas?|brackets?|screens?|cabinets?|consoles?|deals?)\b/g,
      /\b(?:travel|camper|utility|boat|cargo|horse)\s+trailers?\b|\btrailer\s+hitch(?:es)?\b/g,
    ],
    cues: [
      /\b(?:movies?|films?|cinemas?|showtimes?|trailers?|blockbusters?|documentar(?:y|ies)|sitcoms?|anime|watch ?lists?)\b/,
      /\b(?:music|songs?|albums?|playlists?|soundtracks?|lyrics|discograph(?:y|ies)|mp3s?|vinyls?|podcasts?|radio stations?)\b/,
      /\b(?:videos?|stream(?:s|ing|ed)?|dvds?|blu[- ]?rays?|episodes?)\b/,
      /\b(?:tv|television)\s+(?:shows?|series|episodes?|programs?|programmes?|channels?)\b/,
      /\blisten(?:s|ed|ing)?\b|\b(?:video )?highlights\b|\bbillboard (?:hot 100|charts?)\b/,
      /\b(?:rock|pop|hip[- ]hop|jazz|indie|country|electronic|r&b|rap|metal|k-pop|classical|folk|punk)\s+(?:artists?|bands?|singers?|musicians?|rappers?)\b/,
      /\bwatch\s+(?:the\s+|a\s+|an\s+)?(?:\w+\s+){0,2}(?:highlights|games?|matches|match|live|online|episodes?|shows?|clips?|replays?)\b/,
      // "track" as a recording (the noun), not the verb in "track a flight/order".
      /\b(?:a|the|this|that|music|audio|top|first|latest|new|favou?rite|rock|pop|indie|bonus)\s+tracks?\b|\btracks\b/,
      /\b(?:netflix|hulu|spotify|youtube|soundcloud|disney\+|hbo max|prime video|apple music|apple tv|pandora|deezer|imdb|rotten tomatoes)\b/,
    ],
  },
  hotel: {
    masks: [
      /\b(?:living|dining|family|laundry|play|game|show|chat|class|meeting|conference|waiting|escape|rest|powder|sun|mud|storage|utility|emergency|kids'?|baby|break|control|engine|boiler|locker|dressing|fitting|changing|music|media|bath|bed|elbow|head|leg|throne)\s+rooms?\b/g,
      /\brooms?\s+(?:heaters?|dividers?|decor|sprays?|fresheners?|purifiers?|fans?|thermometers?|rugs?|curtains?|lights?|lamps?|temperature)\b/g,
      /\blast resort\b|\bcottage cheese\b|\bstay (?:tuned|updated|informed|connected|safe|healthy|home)\b/g,
    ],
    cues: [
      /\b(?:hotels?|motels?|inns?|resorts?|hostels?|lodgings?|accommodations?|guest ?houses?|bed (?:and|&) breakfasts?|b&bs?|bnbs?|airbnbs?|homestays?|(?:vacation|holiday) (?:rentals?|homes?|lets?)|villas?|chalets?|bungalows?|cottages?)\b/,
      /\b(?:junior|presidential|executive|honeymoon|king|family|one-bedroom|two-bedroom|hotel)\s+suites?\b/,
      /\b(?:marriott|hilton|hyatt|sheraton|westin|ritz[- ]carlton|radisson|wyndham|best western|ibis|novotel|intercontinental|crowne plaza|booking\.com|hotels\.com|agoda|trivago)\b/,
      new RegExp(String.raw`\b(?:${COUNT}|single|double|twin|triple|king|queen|deluxe|standard|superior|executive|connecting|adjoining|non-smoking|private|guest|cheapest|available)\s+rooms?\b`),
      new RegExp(String.raw`\b(?:book|reserve|rent)\w*\s+(?:\w+\s+){0,2}rooms?\b|\brooms?\s+(?:for|with)\s+${COUNT}\s+(?:adults?|guests?|people|persons|nights?)\b`),
      new RegExp(String.raw`\bfor\s+${COUNT}\s+nights?\b|\b(?:${COUNT}[- ]night|overnight|weekend|hotel)\s+stays?\b`),
      new RegExp(String.raw`\b(?:places?|somewhere|where) to stay\b|\bto stay (?:in|at)\s+(?:${COUNT}|the)\b`),
      { first: /\bcheck[- ]?in\b/, then: /\bcheck[- ]?out\b/, within: 120 },
      // Housing for a few days or weeks is a short stay, i.e. lodging.
      {
        first: /\b(?:apartments?|condos?|flats?|houses?|homes?|cabins?|studios?|lofts?|rooms?)\b/,
        then: new RegExp(String.raw`\bfor\s+${COUNT}\s+(?:days?|nights?|weeks?)\b`),
        within: 40,
      },
      /\b(?:short[- ]term|serviced|furnished)\s+(?:apartments?|homes?|houses?|condos?|rentals?|lets?)\b/,
    ],
  },
  job: {
    masks: [/\bsteve jobs\b/g],
    cues: [
      /\b(?:jobs?|careers?|employment|internships?|apprenticeships?|hiring|recruit(?:ing|ment|ers?))\b/,
      // `\s+(?:my ...)?\s*` backtracked quadratically over a long blank run; the determiner owns its space.
      /\b(?:upload|submit|send|attach)\w*\s+(?:(?:my|your|a|the)\s*)?(?:résumé|resume|cv)\b/,
      { first: /\b(?:apply|applying|application)\b/, then: /\b(?:positions?|roles?|openings?|shifts?)\b/, within: 60 },
      { first: /\b(?:positions?|roles?|openings?)\b/, then: /\bapply\b/, within: 60 },
      /\b(?:full|part)[- ]time\b|\b(?:open|vacant|entry[- ]level|remote|senior|junior)\s+(?:positions?|roles?)\b|\bwork as an?\b/,
    ],
  },
  flight: {
    masks: [
      /\bflight (?:simulators?|mode|of stairs|of (?:beer|wine|whiskey|whisky|tea)|attendants?|crew|schools?|instructors?|training|deck)\b/g,
      /\bfly(?:ing)?\s+(?:fishing|swatters?|traps?|squirrels?|discs?)\b/g,
    ],
    cues: [
      /\b(?:flights?|airlines?|airways|airfares?|air fares?|airplanes?|aeroplanes?|planes?|plane tickets?|air tickets?|boarding pass(?:es)?|layovers?|private jets?)\b/,
      /\bfl(?:y|ying|ies|ew)\s+(?:from|to|into|out of|between|direct|nonstop|non-stop|one[- ]way|round[- ]trip|economy|business class|first class)\b/,
      /\b(?:jetblue|lufthansa|ryanair|easyjet|qantas|aer lingus|klm|wizz ?air|vueling|air canada|air france|british airways)\b/,
      // A one-way/round-trip ticket between places with no ground transport named is a flight.
      {
        pattern: /\b(?:one[- ]way|round[- ]?trip|return|non-?stop|direct)\s+(?:\w+\s+)?(?:tickets?|fares?|trips?)\b/,
        unless: /\b(?:trains?|rail|amtrak|buses|bus|coach|greyhound|ferry|ferries|cruises?|subway|metro)\b/,
      },
    ],
  },
  purchase: {
    masks: [
      /\bbest buy\b|\bbuy[- ](?:and|&)[- ]save\b|\bbuy[- ]one[- ]get[- ]one\b|\bbuy more,? save more\b|\bbuy online,? pick ?up\b|\bbuy now,? pay later\b/g,
      /\bin order (?:to|of|for)\b|\b(?:sort|sorted|sorting|arrange|arranged|list|listed)\s+(?:\w+\s+)?(?:in\s+)?(?:\w+\s+)?order\b|\b(?:ascending|descending|alphabetical|chronological|reverse|random)\s+order\b/g,
      /\border (?:status|history|number|confirmation|tracking|of|by)\b|\btrack(?:ing)?\s+(?:my|an|the|your|our)\s+orders?\b/g,
      /\b(?:kitchen|bar|serving|rolling|utility|tea|golf|baby|push|hand|storage|craft|laundry|microwave)\s+carts?\b/g,
      /\b(?:watch|play|reading|mailing|guest|wait|waiting|to-?do|bucket)\s*lists?\b/g,
    ],
    cues: [
      /\b(?:buy|buys|buying|bought|purchase|purchases|purchased|purchasing)\b/,
      /\b(?:carts?|checkout)\b|\bproceed to (?:payment|pay)\b/,
      /\b(?:to|in|into)\s+(?:(?:my|the|your|a|our)\s*)?(?:shopping\s+)?(?:bag|basket|trolley)\b/,
      /(?:^|[.,;!]\s*|\b(?:and|then|to|please|want to|like to)\s+)(?:pre-?)?order\b|\bplace (?:an?|the|my) (?:\w+ )?orders?\b|\bpre-?orders?\b|\breorder\b/,
      /\bshop(?:ping)? for\b/,
      // "Check out" with no object is paying at a checkout ("acquire a sofa and check out"); with
      // one it is looking at something ("check out the new album"). A library checks out books,
      // and a hotel guest checks out (a hotel task is not a shopping one; see PURCHASE_OVERRIDING).
      {
        pattern: /\bcheck[- ]out\b\s?(?:$|[.,;!?)]|(?:and|then|now|with|using|via|through|securely|online|as (?:a )?guest)\b)/,
        unless: /\blibrar(?:y|ies)\b/,
      },
      // Saving a product to a shopping or wish list is part of shopping.
      {
        first: /\b(?:add|adding|added|save|saving|put)\b/,
        then: /\b(?:to|in|into)\s+(?:(?:my|the|your|a|that|this|our|new)\s*)?(?:shopping\s+|wish\s?|gift\s+|saved\s+)?(?:lists?|registry|orders?)\b/,
        within: 80,
        notBetween: /[.;]/,
        reach: 'nearest',
      },
    ],
  },
};

/**
 * Categories whose own rule governs buying them: buying a car falls under the car rule, a
 * booked hotel stay under the hotel rule, a flight ticket under the flight rule. A task in one of
 * these categories is not additionally a (membership-gated) shopping purchase.
 */
export const PURCHASE_OVERRIDING: readonly TaskCategory[] = ['car', 'hotel', 'flight'];
