"""VoiceBench (github.com/MatthewCYM/VoiceBench): its readers, rules and judges.

- `mcq_reader`, `mcq_scorer`: the multiple-choice reader of openbookqa and mmsu (`voicebench_mcq`);
- `bbh_rules`, `bbh_match`: the BBH answer phrases per task (`bbh_match`);
- `refusal`: the advbench refusal-phrase rule (`refusal`);
- `open_judge`, `qa_judge`: the LLM judges of alpacaeval / commoneval / wildvoice
  (`voicebench_open`) and sd-qa (`voicebench_qa`), their prompts in `templates/`, their
  sampling in `judge_sampling`;

Each official figure equals VoiceBench's code at commit 5338154 on the same replies, with its
random pick for an unreadable reply replaced by that pick's expectation; our own readings sit
beside it under their own names. `benchmark.py` states what VoiceBench provides (its specs in
`specs/`, its scorers, its judge prompts in `templates/`), registered by `load_benchmarks()`.
"""
