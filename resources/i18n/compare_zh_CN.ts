<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AlignerPanel</name>
    <message>
        <source>&lt;b&gt;Aligner&lt;/b&gt; (eflomal): word links</source>
        <translation>&lt;b&gt;词对齐器&lt;/b&gt;（eflomal）：词语链接</translation>
    </message>
    <message>
        <source>The word aligner&apos;s links appear here once the maps share one target: choose the reference or one scorer&apos;s output under “Maps show”.</source>
        <translation>各图共用同一目标后，词对齐器的链接显示在这里：请在“图中显示”里选择参考译文或某个打分函数的输出。</translation>
    </message>
    <message>
        <source>The word aligner links the source and the shared target once every model has scored it…</source>
        <translation>每个模型都为共用目标打分后，词对齐器会把源句与该目标链接起来…</translation>
    </message>
    <message>
        <source>A statistical word aligner&apos;s links on the same sentence pair as the maps, to set attention against: where a translator&apos;s alignment would put each word</source>
        <translation>统计词对齐器在与各图相同的句对上给出的链接，用来与注意力对照：按翻译中的对齐，每个词应落在哪里</translation>
    </message>
    <message>
        <source>%1 link</source>
        <translation>%1 条链接</translation>
    </message>
    <message>
        <source>%1 links</source>
        <translation>%1 条链接</translation>
    </message>
    <message>
        <source>%1; %2.</source>
        <translation>%1；%2。</translation>
    </message>
</context>
<context>
    <name>CompareController</name>
    <message>
        <source>Cannot go back to that step of %1: %2</source>
        <translation>无法回到 %1 的那一步：%2</translation>
    </message>
    <message>
        <source>cannot load %1: %2</source>
        <translation>无法加载 %1：%2</translation>
    </message>
    <message>
        <source>decoding failed: %1</source>
        <translation>解码失败：%1</translation>
    </message>
</context>
<context>
    <name>CompareExplain</name>
    <message>
        <source>stopped %1/%2</source>
        <translation>已停止 %1/%2</translation>
    </message>
    <message>
        <source>%1: stopped at %2/%3</source>
        <translation>%1：停在 %2/%3</translation>
    </message>
    <message>
        <source>Attribution failed: %1</source>
        <translation>归因失败：%1</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>%1: %2 of %3 steps of every map</source>
        <translation>%1：每张图 %3 步中的 %2 步</translation>
    </message>
    <message>
        <source> · %1 on the source: %2 %</source>
        <translation> · %1 来自源句：%2 %</translation>
    </message>
</context>
<context>
    <name>CompareExport</name>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Attention Studio: the scorers compared</source>
        <translation>Attention Studio：打分函数对比</translation>
    </message>
    <message>
        <source>One attention map per scorer over the same sentence; rows output tokens, columns source tokens.</source>
        <translation>同一句子上每个打分函数一张注意力图；行为输出词元，列为源词元。</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>CompareExports</name>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>SVG drawing (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Export the comparison</source>
        <translation>导出对比</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
</context>
<context>
    <name>CompareModel</name>
    <message>
        <source>no %1 model for %2: train one in the Train tab</source>
        <translation>%2 没有 %1 模型：请在“训练”标签页训练一个</translation>
    </message>
    <message>
        <source>Each scorer&apos;s own output</source>
        <translation>各打分函数自己的输出</translation>
    </message>
    <message>
        <source>The reference, forced on every model</source>
        <translation>参考译文，强制给每个模型</translation>
    </message>
    <message>
        <source>The %1 output, forced on every model</source>
        <translation>%1 的输出，强制给每个模型</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>forced text: log p %1 (%2 per token)</source>
        <translation>强制文本：log p %1（每词元 %2）</translation>
    </message>
    <message>
        <source>perplexity %1</source>
        <translation>困惑度 %1</translation>
    </message>
    <message>
        <source>entropy %1 nats</source>
        <translation>熵 %1 nats</translation>
    </message>
    <message>
        <source>max α %1</source>
        <translation>最大 α %1</translation>
    </message>
    <message>
        <source>own output&apos;s BLEU %1, chrF %2</source>
        <translation>自身输出的 BLEU %1，chrF %2</translation>
    </message>
    <message>
        <source>log p, tokens, entropy and max α: the target forced on this model (the text shown).</source>
        <translation>log p、词元数、熵和最大 α：强制给此模型的目标（所显示的文本）。</translation>
    </message>
    <message>
        <source>log p, tokens, entropy and max α: this scorer&apos;s own output.</source>
        <translation>log p、词元数、熵和最大 α：此打分函数自己的输出。</translation>
    </message>
    <message>
        <source>Per token: log p ÷ tokens (&lt;/s&gt; included); perplexity: exp(−log p per token).</source>
        <translation>每词元：log p ÷ 词元数（含 &lt;/s&gt;）；困惑度：exp(−每词元 log p)。</translation>
    </message>
    <message>
        <source>BLEU and chrF: this scorer&apos;s own output against the reference (not the forced text shown).</source>
        <translation>BLEU 和 chrF：此打分函数自己的输出对照参考译文（不是所显示的强制文本）。</translation>
    </message>
    <message>
        <source>BLEU and chrF: this scorer&apos;s own output against the reference.</source>
        <translation>BLEU 和 chrF：此打分函数自己的输出对照参考译文。</translation>
    </message>
</context>
<context>
    <name>CompareTab</name>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Grid as PNG…</source>
        <translation>网格导出为 PNG…</translation>
    </message>
    <message>
        <source>Grid as SVG…</source>
        <translation>网格导出为 SVG…</translation>
    </message>
    <message>
        <source>Matrices as JSON…</source>
        <translation>矩阵导出为 JSON…</translation>
    </message>
    <message>
        <source>Ready: type a sentence and press Enter.</source>
        <translation>就绪：输入一个句子并按回车。</translation>
    </message>
    <message>
        <source>Scoring “%1” under every model…</source>
        <translation>正在用每个模型为“%1”打分…</translation>
    </message>
    <message>
        <source>Loading the models…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>No model for this direction.</source>
        <translation>此方向没有模型。</translation>
    </message>
    <message>
        <source>Type a sentence first.</source>
        <translation>请先输入一个句子。</translation>
    </message>
    <message>
        <source>Nothing to compare: %1.</source>
        <translation>没有可对比的内容：%1。</translation>
    </message>
    <message>
        <source>Long input: %1. Only that part is compared.</source>
        <translation>输入过长：%1。只对比这一部分。</translation>
    </message>
    <message>
        <source>Decoding with every scorer…</source>
        <translation>正在用每个打分函数解码…</translation>
    </message>
    <message>
        <source>Done: every map shows the same target.</source>
        <translation>完成：每张图显示同一个目标。</translation>
    </message>
    <message>
        <source>Done: each map shows its own output. Choose a shared target to subtract two maps.</source>
        <translation>完成：每张图显示各自的输出。选择一个共用目标即可让两张图相减。</translation>
    </message>
    <message>
        <source>Force the reference on every model</source>
        <translation>把参考译文强制给每个模型</translation>
    </message>
    <message>
        <source>Force the %1 output on every model</source>
        <translation>把 %1 的输出强制给每个模型</translation>
    </message>
</context>
<context>
    <name>CompareWidgets</name>
    <message>
        <source>Step inspector: hover a map row or an output token of any scorer to see that step&apos;s scores e_ij and weights α_ij.</source>
        <translation>步骤检查器：将指针停在任一打分函数的图中某行或某个输出词元上，即可查看该步的得分 e_ij 和权重 α_ij。</translation>
    </message>
    <message>
        <source>A sentence to translate with every scorer at once — press Enter</source>
        <translation>用所有打分函数同时翻译的句子——按回车</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Example sentences with their reference translations</source>
        <translation>带参考译文的示例句子</translation>
    </message>
    <message>
        <source>Reference translation (optional): sentence BLEU and chrF per scorer, and a target every model can be scored on</source>
        <translation>参考译文（可选）：用于计算每个打分函数的句子 BLEU 和 chrF，也可作为所有模型共同打分的目标</translation>
    </message>
    <message>
        <source>Maps show:</source>
        <translation>图中显示：</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Save the grid as one image, or every matrix as JSON</source>
        <translation>把网格保存为一张图像，或把所有矩阵保存为 JSON</translation>
    </message>
    <message>
        <source>Step inspector</source>
        <translation>步骤检查器</translation>
    </message>
    <message>
        <source>Aligner</source>
        <translation>词对齐器</translation>
    </message>
    <message>
        <source>Looking for models…</source>
        <translation>正在查找模型…</translation>
    </message>
</context>
<context>
    <name>CoverageBar</name>
    <message>
        <source>coverage Σᵢα</source>
        <translation>覆盖度 Σᵢα</translation>
    </message>
</context>
<context>
    <name>DifferencePanel</name>
    <message>
        <source>&lt;b&gt;Difference&lt;/b&gt; α_A − α_B:</source>
        <translation>&lt;b&gt;差值&lt;/b&gt; α_A − α_B：</translation>
    </message>
    <message>
        <source>α_A − α_B appears here once every model is given one shared target.</source>
        <translation>每个模型都得到同一个共用目标后，α_A − α_B 显示在这里。</translation>
    </message>
    <message>
        <source>Score one target under every model (forced decoding), so that all maps share their rows and any two can be subtracted</source>
        <translation>用每个模型为同一个目标打分（强制解码），使所有图的行相同，任意两张图都能相减</translation>
    </message>
    <message>
        <source>Two attention scorers are needed for a difference map.</source>
        <translation>差值图需要两个注意力打分函数。</translation>
    </message>
    <message>
        <source>Each map has its own output rows: choose one shared target above (the reference or one scorer&apos;s output) to subtract them.</source>
        <translation>每张图的输出行各不相同：请在上方选择一个共用目标（参考译文或某个打分函数的输出）后再相减。</translation>
    </message>
    <message>
        <source>These two models cut the sentence into different sub-words: their maps have different columns and cannot be subtracted.</source>
        <translation>这两个模型把句子切成了不同的子词：它们的图列不同，无法相减。</translation>
    </message>
    <message>
        <source>%1 − %2: red where A attends more, blue where B does; largest difference %3.</source>
        <translation>%1 − %2：红色处 A 的注意力更多，蓝色处 B 更多；最大差值 %3。</translation>
    </message>
</context>
<context>
    <name>EnlargedMap</name>
    <message>
        <source>Wheel to zoom, drag to pan, double-click to reset the zoom; hover a cell to see its step in the Compare tab&apos;s step inspector.</source>
        <translation>滚轮缩放，拖动平移，双击重置缩放；指针停在某个单元格上，可在“对比”标签页的步骤检查器中查看该步。</translation>
    </message>
    <message>
        <source>%1 — attention</source>
        <translation>%1 — 注意力</translation>
    </message>
</context>
<context>
    <name>ScorerPanel</name>
    <message>
        <source>%1 (read-only)</source>
        <translation>%1（只读）</translation>
    </message>
    <message>
        <source>Open this map in a window of its own, large enough for every source and output label (it follows the panel)</source>
        <translation>在单独的窗口中打开此图，大到足以显示每个源标签和输出标签（随面板更新）</translation>
    </message>
    <message>
        <source>Coverage: the total attention each source token received over the whole output (dashed line: 1). Near 0: a word the output may have dropped; well above 1: a word it may have translated twice.</source>
        <translation>覆盖度：每个源词元在整个输出中获得的注意力总和（虚线：1）。接近 0：输出可能漏译了这个词；远大于 1：这个词可能被翻译了两次。</translation>
    </message>
    <message>
        <source>No attention: every step reads the same fixed context C, the encoder&apos;s summary of the whole sentence — nothing to map.</source>
        <translation>没有注意力：每一步都读取同一个固定的上下文 C，即编码器对整句的概括——没有可画的图。</translation>
    </message>
    <message>
        <source>Forced: </source>
        <translation>强制：</translation>
    </message>
</context>
</TS>
