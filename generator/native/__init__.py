"""The compiled builds: the generated package through mypyc (:mod:`.build`, ``kwire generate
--compile``; :mod:`.frontend` translates, :mod:`.compiler` compiles the C) and the record column
decoders (:mod:`.records`, ``make native``, ``kwire build-native``); :mod:`.inline` pastes
kwire.wire.varint into a module compiled alone."""
