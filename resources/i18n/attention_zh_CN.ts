<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AttentionExport</name>
    <message>
        <source>translate a sentence first: there is no attention matrix to animate yet</source>
        <translation>请先翻译一个句子：还没有可做成动画的注意力矩阵</translation>
    </message>
    <message>
        <source>this model has no attention weights (fixed context C): nothing to export</source>
        <translation>此模型没有注意力权重（固定上下文 C）：没有可导出的内容</translation>
    </message>
    <message>
        <source>translate a sentence first: there is no attention matrix yet</source>
        <translation>请先翻译一个句子：还没有注意力矩阵</translation>
    </message>
    <message>
        <source>Attention heatmap</source>
        <translation>注意力热图</translation>
    </message>
    <message>
        <source>Attention weights α_ij: rows are output tokens, columns source tokens.</source>
        <translation>注意力权重 α_ij：行为输出词元，列为源词元。</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>translate a sentence first: there is no decode to record yet</source>
        <translation>请先翻译一个句子：还没有可录制的解码过程</translation>
    </message>
    <message>
        <source>this model has no attention weights (fixed context C): there is no heatmap to animate</source>
        <translation>此模型没有注意力权重（固定上下文 C）：没有可做成动画的热图</translation>
    </message>
    <message>
        <source>frame %1 of %2</source>
        <translation>第 %1 帧，共 %2 帧</translation>
    </message>
    <message>
        <source>cannot write %1: it is a folder</source>
        <translation>无法写入 %1：它是一个文件夹</translation>
    </message>
    <message>
        <source>cannot write %1: the folder %2 does not exist</source>
        <translation>无法写入 %1：文件夹 %2 不存在</translation>
    </message>
    <message>
        <source>cannot write %1: %2 is not a folder</source>
        <translation>无法写入 %1：%2 不是文件夹</translation>
    </message>
    <message>
        <source>MP4 export needs imageio-ffmpeg: pip install imageio-ffmpeg (it brings its own ffmpeg)</source>
        <translation>导出 MP4 需要 imageio-ffmpeg：pip install imageio-ffmpeg（它自带 ffmpeg）</translation>
    </message>
    <message>
        <source>cannot start ffmpeg: %1</source>
        <translation>无法启动 ffmpeg：%1</translation>
    </message>
    <message>
        <source>cannot write %1: ffmpeg did not finish in %2 s</source>
        <translation>无法写入 %1：ffmpeg 未在 %2 秒内完成</translation>
    </message>
    <message>
        <source>cannot write %1: ffmpeg failed (%2)</source>
        <translation>无法写入 %1：ffmpeg 失败（%2）</translation>
    </message>
</context>
<context>
    <name>AttentionPanel</name>
    <message>
        <source>Hover a cell for its weight · wheel: zoom · drag: pan · double-click: reset · click a row: its step</source>
        <translation>悬停看权重 · 滚轮缩放 · 拖动平移 · 双击重置 · 点击行看该步</translation>
    </message>
    <message>
        <source>piece %1 of the word ‘%2’ (steps %3–%4; its map row averages them)</source>
        <translation>词“%2”的第 %1 个子词（第 %3–%4 步；它在图中的行取这些步的平均）</translation>
    </message>
</context>
<context>
    <name>AttributionSection</name>
    <message>
        <source>The attribution of this step is not computed yet.</source>
        <translation>这一步的归因还没有算出。</translation>
    </message>
    <message>
        <source>%1 of step %2: log p = %3 · on the source %4 %, on the words written before %5 %</source>
        <translation>第 %2 步的%1：log p = %3 · 来自源句 %4 %，来自之前已写出的词 %5 %</translation>
    </message>
    <message>
        <source>they agree</source>
        <translation>二者一致</translation>
    </message>
    <message>
        <source>they differ</source>
        <translation>二者不同</translation>
    </message>
    <message>
        <source>Spearman ρ(α, |%1|) = %2 · top source word: α %3, %1 %4 — %5</source>
        <translation>Spearman ρ(α, |%1|) = %2 · 最主要的源词：α %3，%1 %4 — %5</translation>
    </message>
    <message>
        <source>No attention in this model: the attribution is the only explanation there is of which source words this output depended on.</source>
        <translation>此模型没有注意力：归因是说明这个输出依赖哪些源词的唯一解释。</translation>
    </message>
    <message>
        <source>Why %1 and not: %2</source>
        <translation>为什么是 %1 而不是：%2</translation>
    </message>
    <message>
        <source>Why %1 and not %2: for %1 — %3</source>
        <translation>为什么是 %1 而不是 %2：支持 %1 — %3</translation>
    </message>
    <message>
        <source>; for %1 — %2</source>
        <translation>；支持 %1 — %2</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源句</translation>
    </message>
    <message>
        <source>vs %1</source>
        <translation>对比 %1</translation>
    </message>
</context>
<context>
    <name>AttributionView</name>
    <message>
        <source>The attribution is computed once the decode has ended.</source>
        <translation>解码结束后才计算归因。</translation>
    </message>
    <message>
        <source>&lt;p&gt;An attribution is the only explanation there is for this model: choose integrated gradients, input × gradient or occlusion under &lt;i&gt;Map&lt;/i&gt; to see which source words each output word depended on.&lt;/p&gt;</source>
        <translation>&lt;p&gt;对这个模型来说，归因是唯一的解释：在&lt;i&gt;图&lt;/i&gt;下选择积分梯度、输入 × 梯度或遮挡，即可看到每个输出词依赖哪些源词。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1 (blue −, red +; ±%2 = map max |a|)</source>
        <translation>%1（蓝 −，红 +；±%2 = 图中最大 |a|）</translation>
    </message>
    <message>
        <source>%1 ÷ row max |a| (blue −, red +)</source>
        <translation>%1 ÷ 行内最大 |a|（蓝 −，红 +）</translation>
    </message>
    <message>
        <source>%1: this step&apos;s attribution is not in yet.</source>
        <translation>%1：这一步的归因还没有出来。</translation>
    </message>
</context>
<context>
    <name>BeamTree</name>
    <message>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>pruned</source>
        <translation>已剪除</translation>
    </message>
    <message>
        <source>log p of the hypothesis %1
score (log p / lp) %2</source>
        <translation>该假设的 log p %1
得分（log p / lp）%2</translation>
    </message>
</context>
<context>
    <name>ColorScale</name>
    <message>
        <source>α ÷ row max</source>
        <translation>α ÷ 行最大值</translation>
    </message>
    <message>
        <source>α (0–%1, map max)</source>
        <translation>α（0–%1，图中最大值）</translation>
    </message>
    <message>
        <source>Colour = α on the fixed 0–1 scale: maps of different sentences compare</source>
        <translation>颜色 = 固定 0–1 刻度上的 α：不同句子的图可以直接比较</translation>
    </message>
    <message>
        <source>Per row</source>
        <translation>按行</translation>
    </message>
    <message>
        <source>Each row divided by its largest α: every step&apos;s strongest source token is the brightest (the shape of diffuse attention)</source>
        <translation>每行除以该行最大的 α：每一步最强的源词元最亮（可看出分散注意力的形状）</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>0 to the largest α of this map</source>
        <translation>0 到本图最大的 α</translation>
    </message>
</context>
<context>
    <name>ExportKind</name>
    <message>
        <source>Heatmap as PNG…</source>
        <translation>热图导出为 PNG…</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Heatmap as SVG…</source>
        <translation>热图导出为 SVG…</translation>
    </message>
    <message>
        <source>SVG drawing (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Matrix as CSV…</source>
        <translation>矩阵导出为 CSV…</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Matrix as JSON…</source>
        <translation>矩阵导出为 JSON…</translation>
    </message>
    <message>
        <source>Decode as animated GIF…</source>
        <translation>解码过程导出为 GIF 动画…</translation>
    </message>
    <message>
        <source>GIF animation (*.gif)</source>
        <translation>GIF 动画 (*.gif)</translation>
    </message>
    <message>
        <source>Decode as MP4 video…</source>
        <translation>解码过程导出为 MP4 视频…</translation>
    </message>
    <message>
        <source>MP4 video (*.mp4)</source>
        <translation>MP4 视频 (*.mp4)</translation>
    </message>
    <message>
        <source>Decode as a session file…</source>
        <translation>解码过程导出为会话文件…</translation>
    </message>
    <message>
        <source>Attention Studio session (*.session.json)</source>
        <translation>Attention Studio 会话 (*.session.json)</translation>
    </message>
</context>
<context>
    <name>FramePainter</name>
    <message>
        <source>Output: %1</source>
        <translation>输出：%1</translation>
    </message>
</context>
<context>
    <name>HeadChooser</name>
    <message>
        <source>A multi-head mechanism attends with several heads at once: show their mean (the row each step reports, and every statistic uses) or one head&apos;s weights</source>
        <translation>多头机制同时用几个头计算注意力：显示它们的平均（每一步报告、各项统计所用的那一行）或某一个头的权重</translation>
    </message>
    <message>
        <source>Layer %1 · </source>
        <translation>第 %1 层 · </translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Mean of %1 heads</source>
        <translation>%1 个头的平均</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Head %1 of %2</source>
        <translation>头 %1（共 %2 个）</translation>
    </message>
</context>
<context>
    <name>HeatmapView</name>
    <message>
        <source>The attention map appears here: one row per output token, one column per source token.</source>
        <translation>注意力图显示在这里：每个输出词元一行，每个源词元一列。</translation>
    </message>
    <message>
        <source>Colours: %1</source>
        <translation>颜色：%1</translation>
    </message>
</context>
<context>
    <name>LayerHeadGrid</name>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
</context>
<context>
    <name>MapChoice</name>
    <message>
        <source>attention α</source>
        <translation>注意力 α</translation>
    </message>
    <message>
        <source>integrated gradients</source>
        <translation>积分梯度</translation>
    </message>
    <message>
        <source>input × gradient</source>
        <translation>输入 × 梯度</translation>
    </message>
    <message>
        <source>occlusion</source>
        <translation>遮挡</translation>
    </message>
    <message>
        <source>The attention weights α_ij the model computed: where each step looked.</source>
        <translation>模型算出的注意力权重 α_ij：每一步看向哪里。</translation>
    </message>
    <message>
        <source>Integrated gradients (Sundararajan 2017): each source piece&apos;s contribution to log p(y_i | y_&lt;i, x), the gradient integrated along a path from a neutral input; a step&apos;s values sum to its log p minus the baseline&apos;s.</source>
        <translation>积分梯度（Sundararajan 2017）：每个源子词对 log p(y_i | y_&lt;i, x) 的贡献，即沿着从中性输入出发的路径对梯度积分；一步的各值之和等于它的 log p 减去基线的 log p。</translation>
    </message>
    <message>
        <source>Input × gradient: each source piece&apos;s embedding times the gradient of log p(y_i) — one backward pass, a first-order estimate.</source>
        <translation>输入 × 梯度：每个源子词的嵌入乘以 log p(y_i) 的梯度——一次反向传播，一阶估计。</translation>
    </message>
    <message>
        <source>Occlusion: how much log p(y_i) drops when a source piece is replaced by a neutral one.</source>
        <translation>遮挡：把一个源子词换成中性子词时，log p(y_i) 下降多少。</translation>
    </message>
    <message>
        <source>What the map shows: the attention α, or how much each source word contributed to the output (an attribution, computed after the decode)</source>
        <translation>图中显示什么：注意力 α，或每个源词对输出贡献了多少（归因，解码后计算）</translation>
    </message>
    <message>
        <source>Stop computing the attribution (the rows done stay)</source>
        <translation>停止计算归因（已算好的行保留）</translation>
    </message>
    <message>
        <source>Map:</source>
        <translation>图：</translation>
    </message>
</context>
<context>
    <name>MapUnits</name>
    <message>
        <source>(output step %1, source position %2)</source>
        <translation>（输出第 %1 步，源位置 %2）</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>steps %1–%2, averaged</source>
        <translation>第 %1–%2 步，取平均</translation>
    </message>
    <message>
        <source>position %1</source>
        <translation>位置 %1</translation>
    </message>
    <message>
        <source>positions %1–%2, summed</source>
        <translation>位置 %1–%2，求和</translation>
    </message>
    <message>
        <source>(output word %1: %2; source word %3: %4)</source>
        <translation>（输出词 %1：%2；源词 %3：%4）</translation>
    </message>
</context>
<context>
    <name>MapViewBar</name>
    <message>
        <source>Words: sub-word pieces merged into words — English by the ▁ word-start marks, Chinese by a word segmenter (jieba); α summed over a word&apos;s source pieces and averaged over its output pieces, so every row still sums to 1. Off: the model&apos;s real units, pieces that continue a word marked ## and a piece that is only the word-start mark shown as ␣.</source>
        <translation>词：把子词合并成词——英文按 ▁ 词首标记，中文用分词器（jieba）；α 在一个词的各源子词上求和、在其各输出子词上取平均，所以每行之和仍为 1。关闭：显示模型真正的单位，接续一个词的子词标为 ##，只有词首标记的子词显示为 ␣。</translation>
    </message>
    <message>
        <source>Words</source>
        <translation>词</translation>
    </message>
    <message>
        <source>Colour scale of the map (its colour bar says which)</source>
        <translation>图的颜色刻度（颜色条上会注明）</translation>
    </message>
    <message>
        <source>Reset zoom</source>
        <translation>重置缩放</translation>
    </message>
    <message>
        <source>Every column in view again, and the rows as the map opened (double-click a map does the same)</source>
        <translation>重新显示所有列，行恢复为图刚打开时的样子（双击图也一样）</translation>
    </message>
    <message>
        <source>Colours:</source>
        <translation>颜色：</translation>
    </message>
</context>
<context>
    <name>ModelView</name>
    <message>
        <source>Encoder self-attention (source × source)</source>
        <translation>编码器自注意力（源 × 源）</translation>
    </message>
    <message>
        <source>Decoder self-attention (output × what it has written)</source>
        <translation>解码器自注意力（输出 × 已写出的部分）</translation>
    </message>
    <message>
        <source>Cross-attention (output × source)</source>
        <translation>交叉注意力（输出 × 源）</translation>
    </message>
    <message>
        <source>Layers and heads</source>
        <translation>层与头</translation>
    </message>
    <message>
        <source>Click a small map to open it here.</source>
        <translation>点击一张小图，在这里放大显示。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Layer %1, head %2</source>
        <translation>第 %1 层，头 %2</translation>
    </message>
    <message>
        <source>Layer %1, head %2: click to open it large.</source>
        <translation>第 %1 层，头 %2：点击放大显示。</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>第 %1 层，头 %2</translation>
    </message>
</context>
<context>
    <name>NoAttention</name>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1 或 %2</translation>
    </message>
    <message>
        <source>&lt;h3&gt;No attention: every step sees the same C&lt;/h3&gt;&lt;p&gt;This model is the plain encoder–decoder of Sutskever et al. and Cho et al. (2014): the encoder squeezes the whole sentence into one fixed vector C, and every decoding step reads that same C. There are no weights α&lt;sub&gt;ij&lt;/sub&gt;, so there is no heatmap to draw.&lt;/p&gt;&lt;p&gt;Switch the scorer to %1 to watch each output token look back at the source tokens it needs, and compare the translations of long sentences.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;没有注意力：每一步看到的都是同一个 C&lt;/h3&gt;&lt;p&gt;这个模型是 Sutskever 等人和 Cho 等人（2014）的普通编码器–解码器：编码器把整句压缩成一个固定的语义编码 C，解码的每一步读取的都是同一个 C。没有权重 α&lt;sub&gt;ij&lt;/sub&gt;，所以没有热图可画。&lt;/p&gt;&lt;p&gt;把打分函数换成 %1，就能看到每个输出词元回头看它需要的源词元，并比较长句的译文。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>ReplayDialog</name>
    <message>
        <source>Replay: %1</source>
        <translation>回放：%1</translation>
    </message>
    <message>
        <source>a recorded decode</source>
        <translation>一次录制的解码</translation>
    </message>
    <message>
        <source>Play again</source>
        <translation>再播放一次</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
</context>
<context>
    <name>RowScrollBar</name>
    <message>
        <source>Rows out of view: scroll here (or drag the map); double-click the map to see it as it opened</source>
        <translation>有行在视野之外：在这里滚动（或拖动图）；双击图可恢复为刚打开时的样子</translation>
    </message>
</context>
<context>
    <name>SourceShare</name>
    <message>
        <source>Source or prefix: each bar is the share of that step&apos;s attribution on the source (Σ|source| ÷ (Σ|source| + Σ|prefix|)); the rest came from the output words already written. Dashed line: half.</source>
        <translation>源句还是前缀：每根柱子是该步归因中落在源句上的比例（Σ|源| ÷ (Σ|源| + Σ|前缀|)）；其余来自已写出的输出词。虚线：一半。</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源句</translation>
    </message>
</context>
<context>
    <name>StepInspector</name>
    <message>
        <source>Step inspector: translate a sentence, then hover or click an output token.</source>
        <translation>步骤检查器：先翻译一个句子，再把指针停在某个输出词元上或点击它。</translation>
    </message>
    <message>
        <source>Step inspector: hover or click an output token or a heatmap row.</source>
        <translation>步骤检查器：把指针停在某个输出词元或热图的一行上，或点击它。</translation>
    </message>
    <message>
        <source>head %1&apos;s weights (its scores are not kept)</source>
        <translation>头 %1 的权重（其得分未保留）</translation>
    </message>
    <message>
        <source> with p = %1</source>
        <translation>，p = %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Step i = %1&lt;/b&gt;: output %2</source>
        <translation>&lt;b&gt;第 i = %1 步&lt;/b&gt;：输出 %2</translation>
    </message>
    <message>
        <source> (this token was given: a forced prefix)</source>
        <translation>（此词元是给定的：强制前缀）</translation>
    </message>
    <message>
        <source>Top-%1 candidates%2 — click one to make the model continue from it: %3</source>
        <translation>前 %1 个候选%2——点击其中一个，让模型从它接着生成：%3</translation>
    </message>
    <message>
        <source>Top-%1 candidates%2: %3</source>
        <translation>前 %1 个候选%2：%3</translation>
    </message>
    <message>
        <source>&lt;b&gt;α set by hand at this step.&lt;/b&gt; The model&apos;s own α: %1</source>
        <translation>&lt;b&gt;这一步的 α 是手动设定的。&lt;/b&gt;模型自己的 α：%1</translation>
    </message>
    <message>
        <source>c_i = C: the same fixed context vector at every step (no weights to inspect).</source>
        <translation>c_i = C：每一步都是同一个固定的上下文向量（没有可检查的权重）。</translation>
    </message>
    <message>
        <source>head %1 reads W_V^%1 of</source>
        <translation>头 %1 读取 W_V^%1 ·</translation>
    </message>
    <message>
        <source>Scorer:</source>
        <translation>打分函数：</translation>
    </message>
    <message>
        <source>Context:</source>
        <translation>上下文：</translation>
    </message>
    <message>
        <source>Softmax:</source>
        <translation>Softmax：</translation>
    </message>
    <message>
        <source>Head %1&apos;s score:</source>
        <translation>头 %1 的得分：</translation>
    </message>
    <message>
        <source>Score:</source>
        <translation>得分：</translation>
    </message>
</context>
<context>
    <name>WeightTable</name>
    <message>
        <source>source token</source>
        <translation>源词元</translation>
    </message>
    <message>
        <source>score e_ij</source>
        <translation>得分 e_ij</translation>
    </message>
    <message>
        <source>weight α_ij</source>
        <translation>权重 α_ij</translation>
    </message>
    <message>
        <source>source word</source>
        <translation>源词</translation>
    </message>
    <message>
        <source>weight α^%1_ij</source>
        <translation>权重 α^%1_ij</translation>
    </message>
</context>
</TS>
