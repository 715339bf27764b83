# FlashAttention-3 narrowed to what bench/fa3 measures: head dimension 128, bf16, forward only,
# no split, paged KV, softcap, local, append-KV, pack-GQA, varlen or cluster. Sourced by
# prepare.sh (the rewrite's defines) and gpu_run.sh (setup.py's switches and the test's).
FA3_SWITCHES=(BACKWARD SPLIT PAGEDKV APPENDKV LOCAL SOFTCAP PACKGQA FP16 FP8 VARLEN CLUSTER
              HDIM64 HDIM96 HDIM192 HDIM256 SM80 HDIMDIFF64 HDIMDIFF192)
FA3_DEFINES=()
for s in "${FA3_SWITCHES[@]}"; do
  [[ $s == SM80 ]] && FA3_DEFINES+=(-DFLASHATTENTION_DISABLE_SM8x) || FA3_DEFINES+=(-DFLASHATTENTION_DISABLE_$s)
done
# The CUDA files setup.py compiles with those switches (hopper/setup.py, "sources").
FA3_CUDA_SOURCES=(instantiations/flash_fwd_hdim128_bf16_sm90.cu flash_prepare_scheduler.cu)
fa3_environment() { for s in "${FA3_SWITCHES[@]}"; do echo "FLASH_ATTENTION_DISABLE_$s=TRUE"; done; }
