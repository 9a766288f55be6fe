"""UltraEval-Audio: its text rules (WER/CER chains, TTS WER, BLEU and accuracy matching) as the
`ultraeval` scoring profile."""
