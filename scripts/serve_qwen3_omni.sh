#!/usr/bin/env bash
# Launch two vLLM instances of Qwen3-Omni-30B-A3B-Instruct as the MMAE judge:
# tensor-parallel 4 each on 8 GPUs, ports 8001 and 8002, served as Qwen3Omni-Instruct.
#
#   MODEL_DIR=/models/Qwen3-Omni-30B-A3B-Instruct scripts/serve_qwen3_omni.sh
#
# Then: audioeval mmae score ... --base_urls "http://localhost:8001/v1,http://localhost:8002/v1"
# Needs: pip install "vllm[audio]" (a version that serves Qwen3OmniMoeThinkerForConditionalGeneration).
set -euo pipefail
: "${MODEL_DIR:?set MODEL_DIR to the local Qwen3-Omni-30B-A3B-Instruct folder}"
SERVED_NAME="${SERVED_NAME:-Qwen3Omni-Instruct}"
MAX_LEN="${MAX_LEN:-32768}"
# A rubric attaches at most output + every input clip; 8 covers MMAE's multi-audio samples.
AUDIO_PER_PROMPT="${AUDIO_PER_PROMPT:-8}"
LOG_DIR="${LOG_DIR:-logs}"
mkdir -p "$LOG_DIR"

launch() {  # $1 = GPU list, $2 = port
  CUDA_VISIBLE_DEVICES="$1" nohup vllm serve "$MODEL_DIR" \
    --served-model-name "$SERVED_NAME" \
    --host 0.0.0.0 --port "$2" \
    --tensor-parallel-size 4 \
    --dtype bfloat16 \
    --max-model-len "$MAX_LEN" \
    --gpu-memory-utilization 0.90 \
    --limit-mm-per-prompt "{\"audio\": $AUDIO_PER_PROMPT}" \
    >"$LOG_DIR/vllm_$2.log" 2>&1 &
  echo "started vLLM on port $2 (GPUs $1), log $LOG_DIR/vllm_$2.log"
}

launch 0,1,2,3 8001
launch 4,5,6,7 8002

for port in 8001 8002; do
  until curl -sf "http://localhost:$port/v1/models" >/dev/null; do sleep 10; done
  echo "port $port ready"
done
