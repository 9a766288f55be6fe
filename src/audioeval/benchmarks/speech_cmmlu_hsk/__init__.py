"""SpeechCMMLU and SpeechHSK (UltraEval-Audio's Chinese spoken multiple-choice sets): spec
YAMLs only (`specs/`), no code of their own."""
