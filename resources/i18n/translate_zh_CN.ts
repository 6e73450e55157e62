<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AlignmentReading</name>
    <message>
        <source>Against a word aligner (%1; %2 test pairs, each model fed the reference): AER 0 would be the aligner&apos;s links exactly, 1 none of them.</source>
        <translation>与词对齐工具相比（%1；%2 个测试句对，每个模型都输入参考译文）：AER 为 0 表示与对齐工具的链接完全一致，为 1 表示一个都不一致。</translation>
    </message>
</context>
<context>
    <name>AttentionPanel</name>
    <message>
        <source>Set attention: click a cell to put all of that step&apos;s attention on its source word · shift-click: share it with more · the model continues from there</source>
        <translation>设置注意力：点击一个格子，把该步的全部注意力放到对应的源词上 · 按住 Shift 点击：与更多词分享 · 模型从那里继续</translation>
    </message>
</context>
<context>
    <name>AttentionReading</name>
    <message>
        <source>%1 covers the source most evenly (coverage deviation %2: each source token attended about once in all), %3 least (%4: some tokens skipped, others attended twice).</source>
        <translation>%1 对源句的覆盖最均匀（覆盖偏差 %2：每个源词元总共约被关注一次），%3 最不均匀（%4：有些词元被跳过，另一些被关注两次）。</translation>
    </message>
    <message>
        <source>%1 spreads its attention the most (row entropy %2 nats, %3 of a step on its favourite source token), %4 the least (%5 nats, %6).</source>
        <translation>%1 的注意力最分散（行熵 %2 nats，每步有 %3 落在最受关注的源词元上），%4 最集中（%5 nats，%6）。</translation>
    </message>
    <message>
        <source>Their most-attended source token moves forward, never back, at %1 of the steps.</source>
        <translation>在 %1 的步骤中，最受关注的源词元只向前移动、从不后退。</translation>
    </message>
    <message>
        <source>the even one translates better (BLEU %1 against %2): a source token that gets no attention is a word the output drops</source>
        <translation>覆盖均匀的模型译得更好（BLEU %1 对 %2）：得不到注意力的源词元就是译文漏掉的词</translation>
    </message>
    <message>
        <source>the uneven one translates better here (BLEU %1 against %2): even coverage alone does not make a better translation</source>
        <translation>这里覆盖不均匀的模型译得更好（BLEU %1 对 %2）：仅有均匀的覆盖并不能带来更好的翻译</translation>
    </message>
    <message>
        <source>both score BLEU %1</source>
        <translation>两者的 BLEU 都是 %1</translation>
    </message>
    <message>
        <source>; the fixed C, without attention, scores %1</source>
        <translation>；没有注意力的固定语义编码 C 得 %1</translation>
    </message>
    <message>
        <source>On the longest inputs (%1 source tokens) %2.</source>
        <translation>在最长的输入（%1 个源词元）上，%2。</translation>
    </message>
</context>
<context>
    <name>AttributionReading</name>
    <message>
        <source>Is attention the explanation? (%1 test sentences, %2 integrated-gradient steps, α shuffled %3 times per step): does the output depend on the source pieces α falls on?</source>
        <translation>注意力就是解释吗？（%1 个测试句子，积分梯度 %2 步，每一步将 α 打乱 %3 次）：输出是否依赖于 α 所落在的源词片？</translation>
    </message>
</context>
<context>
    <name>BeamTreeDialog</name>
    <message>
        <source>Beam search, step by step: at each output position the 2K best continuations of the live hypotheses. &lt;b&gt;Bold&lt;/b&gt;: kept · faded: pruned · &lt;span style=&apos;color:#00783c&apos;&gt;✓&lt;/span&gt;: finished, with its score log p / lp (GNMT&apos;s length penalty; plus its coverage penalty cp when the decoding uses one). Background: the token&apos;s probability. Click a node to see its hypothesis and attention; ← → ↑ ↓ walk the tree; Enter picks a node (a finished one becomes the output shown, a live one is continued by the model from there).</source>
        <translation>逐步展示束搜索：在每个输出位置列出活跃假设的 2K 个最佳延续。&lt;b&gt;粗体&lt;/b&gt;：保留 · 淡色：剪枝 · &lt;span style=&apos;color:#00783c&apos;&gt;✓&lt;/span&gt;：已完成，附得分 log p / lp（GNMT 的长度惩罚；解码使用覆盖惩罚时再加上 cp）。背景色：该词元的概率。点击节点查看其假设和注意力；← → ↑ ↓ 在树中移动；Enter 选定节点（已完成的节点成为显示的译文，活跃的节点由模型从该处继续解码）。</translation>
    </message>
    <message>
        <source>Beam 1 is greedy search: one hypothesis, no tree. Set Beam to 2 or more and translate.</source>
        <translation>束宽 1 即贪心搜索：只有一个假设，没有树。请把束宽设为 2 或更大再翻译。</translation>
    </message>
    <message>
        <source>Continued from 1 fixed token (a picked node or candidate). </source>
        <translation>从 1 个固定词元继续（选定的节点或候选）。</translation>
    </message>
    <message>
        <source>Continued from %1 fixed tokens (a picked node or candidate). </source>
        <translation>从 %1 个固定词元继续（选定的节点或候选）。</translation>
    </message>
    <message>
        <source>Searching with a beam of %1: step %2…</source>
        <translation>正在以束宽 %1 搜索：第 %2 步…</translation>
    </message>
    <message>
        <source>Searching with a beam of %1…</source>
        <translation>正在以束宽 %1 搜索…</translation>
    </message>
    <message>
        <source>Beam of %1: translate a sentence to see its search.</source>
        <translation>束宽 %1：翻译一个句子即可查看其搜索过程。</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1 步</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 步</translation>
    </message>
    <message>
        <source>1 finished hypothesis</source>
        <translation>1 个已完成的假设</translation>
    </message>
    <message>
        <source>%1 finished hypotheses</source>
        <translation>%1 个已完成的假设</translation>
    </message>
    <message>
        <source>Beam of %1: %2, %3. Click a node to see its hypothesis and attention.</source>
        <translation>束宽 %1：%2，%3。点击节点查看其假设和注意力。</translation>
    </message>
</context>
<context>
    <name>BeamTreeFollower</name>
    <message>
        <source>%1 was pruned at %2: the beam was full of better hypotheses (log p %3).</source>
        <translation>%1 在 %2 处被剪枝：束中已满是更好的假设（log p %3）。</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>%1 — %2 tokens, log p %3, score %4 (%5).</source>
        <translation>%1 — %2 个词元，log p %3，得分 %4（%5）。</translation>
    </message>
</context>
<context>
    <name>BeamTreePane</name>
    <message>
        <source>Beam tree</source>
        <translation>束搜索树</translation>
    </message>
    <message>
        <source>hover for how to read it</source>
        <translation>悬停查看如何解读</translation>
    </message>
    <message>
        <source>Hide the beam tree (the Beam tree button shows it again)</source>
        <translation>隐藏束搜索树（“束搜索树”按钮可再次显示）</translation>
    </message>
</context>
<context>
    <name>ChoiceBar</name>
    <message>
        <source>Loading models…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <source>%1 s per step</source>
        <translation>每步 %1 秒</translation>
    </message>
    <message>
        <source>Translation direction (only directions with a trained model are listed)</source>
        <translation>翻译方向（只列出有已训练模型的方向）</translation>
    </message>
    <message>
        <source>Attention scorer F(s, h): each is backed by a model trained with it</source>
        <translation>注意力打分函数 F(s, h)：每种都对应一个用它训练的模型</translation>
    </message>
    <message>
        <source>Beam size: 1 = greedy search; in beam search the heatmap shows the best hypothesis</source>
        <translation>束宽：1 = 贪心搜索；束搜索时热图显示最佳假设</translation>
    </message>
    <message>
        <source>1 (greedy)</source>
        <translation>1（贪心）</translation>
    </message>
    <message>
        <source>Slow the decoding down to follow it step by step</source>
        <translation>放慢解码，逐步观察</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>方向</translation>
    </message>
    <message>
        <source>Scorer</source>
        <translation>打分函数</translation>
    </message>
    <message>
        <source>Beam</source>
        <translation>束宽</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
</context>
<context>
    <name>ExplainLink</name>
    <message>
        <source>after the decode</source>
        <translation>解码结束后</translation>
    </message>
    <message>
        <source>The attribution is computed once the decode has ended.</source>
        <translation>归因在解码结束后计算。</translation>
    </message>
    <message>
        <source>%1: stopped at %2/%3</source>
        <translation>%1：停在 %2/%3</translation>
    </message>
    <message>
        <source>stopped %1/%2</source>
        <translation>停在 %1/%2</translation>
    </message>
    <message>
        <source> — choose the method again to go on.</source>
        <translation> — 再次选择该方法即可继续。</translation>
    </message>
    <message>
        <source>why not…</source>
        <translation>为什么不是…</translation>
    </message>
    <message>
        <source>Contrastive attribution of step %1: why %2 and not %3</source>
        <translation>第 %1 步的对比归因：为什么是 %2 而不是 %3</translation>
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
        <source>%1: %2 of %3 steps computed</source>
        <translation>%1：已计算 %2/%3 步</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>Nothing translated yet</source>
        <translation>尚未翻译任何内容</translation>
    </message>
</context>
<context>
    <name>InputState</name>
    <message>
        <source>Type a sentence (or pick one under Examples) and press Enter.</source>
        <translation>输入一个句子（或从“示例”中选一个），然后按 Enter。</translation>
    </message>
    <message>
        <source>Nothing to translate: the input is only spaces.</source>
        <translation>没有可翻译的内容：输入只有空格。</translation>
    </message>
    <message>
        <source>The model is still loading; the sentence is translated as soon as it is ready.</source>
        <translation>模型仍在加载；加载完成后立即翻译该句子。</translation>
    </message>
    <message>
        <source>No model is loaded: choose a direction and scorer that have a model.</source>
        <translation>未加载模型：请选择有模型的方向和打分函数。</translation>
    </message>
    <message>
        <source>Nothing to translate: %1.</source>
        <translation>没有可翻译的内容：%1。</translation>
    </message>
    <message>
        <source>Long input: %1. Only that part is translated.</source>
        <translation>输入过长：%1。只翻译这一部分。</translation>
    </message>
</context>
<context>
    <name>LanguageNotice</name>
    <message>
        <source>this looks like %1 (%2 of its letters), but the model translates %3</source>
        <translation>这看起来是%1（%2 的字符），但该模型翻译的是 %3</translation>
    </message>
    <message>
        <source>⚠ Translated as asked, though %1: expect noise.</source>
        <translation>⚠ 已按要求翻译，但%1：结果可能是噪声。</translation>
    </message>
    <message>
        <source>⚠ Not translated: %1 — it would decode noise.</source>
        <translation>⚠ 未翻译：%1 — 解码只会得到噪声。</translation>
    </message>
    <message>
        <source>Translate anyway</source>
        <translation>仍然翻译</translation>
    </message>
    <message>
        <source>Decode this input with the model in use, this once</source>
        <translation>用当前模型解码这次输入（仅此一次）</translation>
    </message>
    <message>
        <source>Don&apos;t ask again</source>
        <translation>不再询问</translation>
    </message>
    <message>
        <source>Translate it, and from now on translate such input without asking (this line still says what it looks like)</source>
        <translation>翻译它，以后此类输入不再询问直接翻译（这一行仍会说明它看起来是什么语言）</translation>
    </message>
    <message>
        <source>Ask before translating such input</source>
        <translation>翻译此类输入前先询问</translation>
    </message>
    <message>
        <source>Check the input&apos;s language again before decoding it</source>
        <translation>解码前重新检查输入的语言</translation>
    </message>
    <message>
        <source>Switch to %1</source>
        <translation>切换到 %1</translation>
    </message>
    <message>
        <source>Translate it with the %1 model instead</source>
        <translation>改用 %1 模型翻译</translation>
    </message>
</context>
<context>
    <name>LengthLesson</name>
    <message>
        <source>keeps %1 of its %2-token BLEU on %3 tokens (%4 against %5)</source>
        <translation>在 %3 个词元上保持了其 %2 个词元时 BLEU 的 %1（%4 对 %5）</translation>
    </message>
    <message>
        <source>Long inputs hold up</source>
        <translation>长输入依然稳健</translation>
    </message>
    <message>
        <source>Every line falls with length</source>
        <translation>每条线都随长度下降</translation>
    </message>
    <message>
        <source>Long inputs are harder</source>
        <translation>长输入更难</translation>
    </message>
    <message>
        <source>%1: the best scorer on the longest inputs, %2, %3.</source>
        <translation>%1：在最长输入上最好的打分函数 %2 %3。</translation>
    </message>
    <message>
        <source>the fixed C keeps %1</source>
        <translation>固定的 C 保持了 %1</translation>
    </message>
    <message>
        <source>the fixed C</source>
        <translation>固定的 C</translation>
    </message>
    <message>
        <source>On %1 tokens the fixed C (%2 BLEU) is not behind the best attention scorer (%3, %4): these models do not show attention&apos;s advantage.</source>
        <translation>在 %1 个词元上，固定的 C（%2 BLEU）并不落后于最好的注意力打分函数（%3，%4）：这些模型没有显示出注意力的优势。</translation>
    </message>
    <message>
        <source>%1× C&apos;s BLEU</source>
        <translation>C 的 BLEU 的 %1 倍</translation>
    </message>
    <message>
        <source>where C scores nothing</source>
        <translation>正数，而 C 为零</translation>
    </message>
    <message>
        <source>With attention, long inputs hold up: %1 %2, while %3 (%4 BLEU); on %5 tokens attention scores %6.</source>
        <translation>有了注意力，长输入依然稳健：%1 %2，而%3（%4 BLEU）；在 %5 个词元上注意力的得分是 %6。</translation>
    </message>
    <message>
        <source>but attention falls less</source>
        <translation>但注意力下降得更少</translation>
    </message>
    <message>
        <source>and attention falls as far, from higher up</source>
        <translation>而注意力从更高处下降了同样多</translation>
    </message>
    <message>
        <source>Every line falls with length — longer inputs are harder for every model — %1: %2 %3, %4; on %5 tokens attention scores %6 (%7 against %8).</source>
        <translation>每条线都随长度下降——更长的输入对每个模型都更难——%1：%2 %3，%4；在 %5 个词元上注意力的得分是 %6（%7 对 %8）。</translation>
    </message>
    <message>
        <source>Long inputs are harder: the best scorer on the longest inputs, %1, %2, %3; on %4 tokens attention scores %5 (%6 against %7).</source>
        <translation>长输入更难：在最长输入上最好的打分函数 %1 %2，%3；在 %4 个词元上注意力的得分是 %5（%6 对 %7）。</translation>
    </message>
</context>
<context>
    <name>LengthStudyDialog</name>
    <message>
        <source>No model yet: train one in the Train tab, then record its length study.</source>
        <translation>还没有模型：请在“训练”标签页训练一个，然后记录其长度研究。</translation>
    </message>
    <message>
        <source>Length study</source>
        <translation>长度研究</translation>
    </message>
    <message>
        <source>The decoding whose study is drawn: greedy, or beam search with each model&apos;s own length and coverage penalties (as the Translate view decodes at that beam)</source>
        <translation>所绘研究使用的解码方式：贪心，或使用各模型自身长度惩罚和覆盖惩罚的束搜索（与“翻译”视图在该束宽下的解码相同）</translation>
    </message>
    <message>
        <source>&amp;Decoding</source>
        <translation>解码(&amp;D)</translation>
    </message>
    <message>
        <source>Length study — %1</source>
        <translation>长度研究 — %1</translation>
    </message>
    <message>
        <source>&lt;h3&gt;%1: quality against source length&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;%1：质量与源句长度&lt;/h3&gt;</translation>
    </message>
</context>
<context>
    <name>LengthStudyLink</name>
    <message>
        <source>greedy search</source>
        <translation>贪心搜索</translation>
    </message>
    <message>
        <source>beam search</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>Beam set from %1 to %2 (%3): the length study&apos;s outputs on screen were decoded that way, and this one is decoded the same way.</source>
        <translation>束宽已从 %1 改为 %2（%3）：屏幕上长度研究的译文是这样解码的，这一句也以同样方式解码。</translation>
    </message>
</context>
<context>
    <name>LengthStudyModel</name>
    <message>
        <source>AER vs aligner</source>
        <translation>对齐工具 AER</translation>
    </message>
    <message>
        <source>precision / recall</source>
        <translation>精确率 / 召回率</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>no length study stored</source>
        <translation>未存储长度研究</translation>
    </message>
    <message>
        <source>no model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>greedy (beam 1)</source>
        <translation>贪心（束宽 1）</translation>
    </message>
    <message>
        <source>beam search, beam %1</source>
        <translation>束搜索，束宽 %1</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>熵 (nats)</translation>
    </message>
    <message>
        <source>max α</source>
        <translation>最大 α</translation>
    </message>
    <message>
        <source>monotonic</source>
        <translation>单调</translation>
    </message>
    <message>
        <source>coverage dev.</source>
        <translation>覆盖偏差</translation>
    </message>
    <message>
        <source>— (no attention: every step reads C)</source>
        <translation>—（无注意力：每一步都读取 C）</translation>
    </message>
    <message>
        <source>top α = top occlusion (chance)</source>
        <translation>α 最大 = 遮挡最大（随机）</translation>
    </message>
    <message>
        <source>ρ(α, |IG|)</source>
        <translation>ρ(α, |IG|)</translation>
    </message>
    <message>
        <source>changed when α shuffled</source>
        <translation>打乱 α 后改变</translation>
    </message>
    <message>
        <source>Attribution study (a sample of the test split, greedy): top α = top occlusion: the share of steps whose most-attended source piece is the one whose removal lowers the output token&apos;s log-probability most, beside chance (1 / the number of source pieces); ρ(α, |IG|): the mean Spearman rank correlation between a step&apos;s attention and the size of its integrated gradients; changed when α shuffled: the share of steps whose output token changes when α is randomly permuted within its row (Jain &amp; Wallace 2019).</source>
        <translation>归因研究（测试集的一个样本，贪心解码）：α 最大 = 遮挡最大：注意力最集中的源词片恰是移除后使输出词元对数概率下降最多的那个的步数占比，旁边是随机水平（1 / 源词片数）；ρ(α, |IG|)：每一步注意力与其积分梯度大小之间的平均 Spearman 秩相关；打乱 α 后改变：在行内随机置换 α 后输出词元发生改变的步数占比（Jain &amp; Wallace 2019）。</translation>
    </message>
    <message>
        <source>— : no attribution study stored for %1 (scripts/attribution_report.py measures it).</source>
        <translation>—：%1 没有存储归因研究（由 scripts/attribution_report.py 测量）。</translation>
    </message>
    <message>
        <source>refused: %1.</source>
        <translation>已拒绝：%1。</translation>
    </message>
</context>
<context>
    <name>LengthStudyView</name>
    <message>
        <source>&lt;b&gt;BLEU against source length&lt;/b&gt; (after Bahdanau et al. 2014, Fig. 2). Without attention the encoder squeezes the whole source into one fixed vector C, which loses information as the input grows; with attention the decoder looks back at every source word.</source>
        <translation>&lt;b&gt;BLEU 与源句长度&lt;/b&gt;（仿 Bahdanau 等 2014 年论文图 2）。没有注意力时，编码器把整个源句压缩成一个固定的语义编码 C，输入越长丢失的信息越多；有了注意力，解码器可以回看每个源词。</translation>
    </message>
    <message>
        <source>greedy decoding</source>
        <translation>贪心解码</translation>
    </message>
    <message>
        <source>beam search (beam %1) with each model&apos;s own length and coverage penalties</source>
        <translation>束搜索（束宽 %1），使用各模型自身的长度惩罚和覆盖惩罚</translation>
    </message>
    <message>
        <source>Data: the long test set (test pairs joined 1–8 at a time), %1; length in source sub-word tokens. Click a bucket to see some of its inputs.</source>
        <translation>数据：长测试集（每次拼接 1–8 个测试句对），%1；长度以源句子词词元计。点击一个区间可查看其中的部分输入。</translation>
    </message>
    <message>
        <source>&lt;b&gt;What these models show:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;这些模型表明：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>the references %1</source>
        <translation>参考译文 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Outputs that loop&lt;/b&gt; (a word %1-gram %2 or more times; Chinese: characters): %3; in the table, such outputs are tinted orange.</source>
        <translation>&lt;b&gt;陷入循环的译文&lt;/b&gt;（某个词 %1-gram 出现 %2 次或更多；中文按字计）：%3；表格中这类译文以橙色标出。</translation>
    </message>
    <message>
        <source>A beam that goes round in circles repeats a phrase; the references&apos; share says how much the language itself repeats</source>
        <translation>兜圈子的束搜索会重复短语；参考译文的比例说明语言本身有多少重复</translation>
    </message>
    <message>
        <source>source length (sub-word tokens)</source>
        <translation>源句长度（子词词元）</translation>
    </message>
    <message>
        <source>The source-length bucket whose inputs are listed below</source>
        <translation>下方列出其输入的源句长度区间</translation>
    </message>
    <message>
        <source>How each scorer attends over the test split (greedy): mean row entropy, mean largest weight, share of steps whose most-attended source token does not move backwards, mean |coverage − 1|. The Compare tab shows the same numbers for one sentence. AER vs aligner: its attention&apos;s argmax links against a statistical word aligner&apos;s, each model fed the test split&apos;s references (0 = the aligner&apos;s links exactly); precision / recall of those links.</source>
        <translation>各打分函数在测试集上（贪心）的注意力情况：平均行熵、平均最大权重、最受关注的源词元不向后移动的步骤比例、平均 |覆盖 − 1|。“比较”标签页对单个句子显示相同的数值。对齐工具 AER：其注意力 argmax 得到的链接与统计词对齐工具的链接相比，每个模型都输入测试集的参考译文（0 = 与对齐工具的链接完全一致）；以及这些链接的精确率 / 召回率。</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>区间</translation>
    </message>
    <message>
        <source>Not drawn — %1.</source>
        <translation>未绘制 — %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;How they attend&lt;/b&gt; (test split, greedy)</source>
        <translation>&lt;b&gt;它们如何分配注意力&lt;/b&gt;（测试集，贪心）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Does the output depend on where they attend?&lt;/b&gt; (attribution study, a sample of the test split)</source>
        <translation>&lt;b&gt;输出是否依赖于它们关注的位置？&lt;/b&gt;（归因研究，测试集的一个样本）</translation>
    </message>
    <message>
        <source>No length study stored for this direction</source>
        <translation>此方向未存储长度研究</translation>
    </message>
</context>
<context>
    <name>ModelChoices</name>
    <message>
        <source>No %1 model with the %2 scorer yet: train one in the Train tab.</source>
        <translation>还没有使用 %2 打分函数的 %1 模型：请在“训练”标签页训练一个。</translation>
    </message>
</context>
<context>
    <name>ModelSource</name>
    <message>
        <source>Cannot list models: %1</source>
        <translation>无法列出模型：%1</translation>
    </message>
    <message>
        <source>Cannot open the model folder given on the command line: %1</source>
        <translation>无法打开命令行指定的模型文件夹：%1</translation>
    </message>
    <message>
        <source> The model in use stays.</source>
        <translation> 继续使用当前模型。</translation>
    </message>
    <message>
        <source>Cannot go back to that step of %1: %2.</source>
        <translation>无法回到 %1 的那一步：%2。</translation>
    </message>
    <message>
        <source>Cannot load the model %1: %2</source>
        <translation>无法加载模型 %1：%2</translation>
    </message>
    <message>
        <source> The previous model is still in use.</source>
        <translation> 仍在使用之前的模型。</translation>
    </message>
    <message>
        <source> Opening %1 instead.</source>
        <translation> 改为打开 %1。</translation>
    </message>
</context>
<context>
    <name>ModelStatus</name>
    <message>
        <source>%1 parameters</source>
        <translation>%1 个参数</translation>
    </message>
    <message>
        <source>test BLEU %1</source>
        <translation>测试 BLEU %1</translation>
    </message>
    <message>
        <source>test BLEU not measured</source>
        <translation>未测量测试 BLEU</translation>
    </message>
    <message>
        <source>data: %1</source>
        <translation>数据：%1</translation>
    </message>
    <message>
        <source>Looking for models…</source>
        <translation>正在查找模型…</translation>
    </message>
    <message>
        <source>Loading the model %1…</source>
        <translation>正在加载模型 %1…</translation>
    </message>
    <message>
        <source>Model folder: %1</source>
        <translation>模型文件夹：%1</translation>
    </message>
    <message>
        <source>Training data: %1</source>
        <translation>训练数据：%1</translation>
    </message>
    <message>
        <source>%1 (read-only) · %2</source>
        <translation>%1（只读）· %2</translation>
    </message>
    <message>
        <source>   (in use: %1)</source>
        <translation>   （当前使用：%1）</translation>
    </message>
</context>
<context>
    <name>ModelViewLink</name>
    <message>
        <source>Every layer and head of this Transformer at once: its encoder&apos;s and decoder&apos;s self-attention and its cross-attention, as a grid of small maps (click one to open it large)</source>
        <translation>一次查看此 Transformer 的每一层、每个头：编码器和解码器的自注意力以及交叉注意力，以小图网格显示（点击一个可放大）</translation>
    </message>
    <message>
        <source>Layers and heads: for a Transformer model, after a translation has finished (an RNN has one attention map: the one below)</source>
        <translation>层与头：适用于 Transformer 模型，在翻译完成后可用（RNN 只有一张注意力图：就是下面这张）</translation>
    </message>
</context>
<context>
    <name>RunExport</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>%1 is still being written: wait for it, or cancel it first.</source>
        <translation>%1 仍在写入：请等待完成，或先取消。</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>正在写入 %1…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Writing %1: %2</source>
        <translation>正在写入 %1：%2</translation>
    </message>
    <message>
        <source>Recording cancelled: %1 left as it was</source>
        <translation>录制已取消：%1 保持原样</translation>
    </message>
</context>
<context>
    <name>SessionOpener</name>
    <message>
        <source>Open a recorded session</source>
        <translation>打开录制的会话</translation>
    </message>
    <message>
        <source>Attention Studio session (*.session.json);;JSON (*.json)</source>
        <translation>Attention Studio 会话 (*.session.json);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
</context>
<context>
    <name>StudyTable</name>
    <message>
        <source>Translate ▸</source>
        <translation>翻译 ▸</translation>
    </message>
    <message>
        <source>“%1” %2 times</source>
        <translation>“%1” %2 次</translation>
    </message>
    <message>
        <source>greedily (beam 1)</source>
        <translation>贪心（束宽 1）</translation>
    </message>
    <message>
        <source>with beam search (beam %1)</source>
        <translation>以束搜索（束宽 %1）</translation>
    </message>
    <message>
        <source>Load this input into the Translate view and watch it decode %1, as the outputs here were</source>
        <translation>把这条输入载入“翻译”视图，观察它%1解码，与这里的译文相同</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>源句</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考译文</translation>
    </message>
    <message>
        <source>Double-click a row (or press its button) to translate it in the Translate view; an output tinted orange loops (some word %1-gram %2 or more times)</source>
        <translation>双击一行（或按它的按钮）即可在“翻译”视图中翻译它；橙色的译文陷入了循环（某个词 %1-gram 出现 %2 次或更多）</translation>
    </message>
    <message>
        <source>%1 source sub-words</source>
        <translation>%1 个源子词</translation>
    </message>
    <message>
        <source>This scorer&apos;s study has no row for this input</source>
        <translation>该打分函数的研究中没有这条输入</translation>
    </message>
    <message>
        <source>Loops: %1</source>
        <translation>循环：%1</translation>
    </message>
</context>
<context>
    <name>TranslateTab</name>
    <message>
        <source>Translate</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>Decoding failed</source>
        <translation>解码失败</translation>
    </message>
    <message>
        <source> The pasted text had %1 characters; the input field keeps the first %2.</source>
        <translation> 粘贴的文本有 %1 个字符；输入框只保留前 %2 个。</translation>
    </message>
    <message>
        <source>No model yet: train one in the Train tab.</source>
        <translation>还没有模型：请在“训练”标签页训练一个。</translation>
    </message>
    <message>
        <source>Model not loaded</source>
        <translation>模型未加载</translation>
    </message>
    <message>
        <source>Stopped after 1 output token.</source>
        <translation>输出 1 个词元后停止。</translation>
    </message>
    <message>
        <source>Stopped after %1 output tokens.</source>
        <translation>输出 %1 个词元后停止。</translation>
    </message>
    <message>
        <source>Step %1: %2  p = %3</source>
        <translation>第 %1 步：%2  p = %3</translation>
    </message>
    <message>
        <source>Top candidates:</source>
        <translation>最佳候选：</translation>
    </message>
</context>
<context>
    <name>TranslateView</name>
    <message>
        <source>&lt;h2&gt;No translation model yet&lt;/h2&gt;&lt;p&gt;Attention Studio needs a trained model to translate. The quickest start is the built-in &lt;b&gt;dates&lt;/b&gt; task: it turns dates written in many English and Chinese styles (“29 Nov 2026”, “二〇二六年十一月二十九日”) into ISO 8601 (“2026-11-29”). It trains in a few minutes on a CPU and shows crisp, readable attention.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;还没有翻译模型&lt;/h2&gt;&lt;p&gt;Attention Studio 需要一个训练好的模型才能翻译。最快的起步是内置的&lt;b&gt;日期&lt;/b&gt;任务：它把以多种中英文格式书写的日期（“29 Nov 2026”、“二〇二六年十一月二十九日”）转换成 ISO 8601（“2026-11-29”）。它在 CPU 上几分钟即可训练完成，注意力清晰易读。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Example sentences</source>
        <translation>示例句子</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Sentences translated in this session</source>
        <translation>本次会话中翻译过的句子</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Save the heatmap or the matrix</source>
        <translation>保存热图或矩阵</translation>
    </message>
    <message>
        <source>Length study</source>
        <translation>长度研究</translation>
    </message>
    <message>
        <source>BLEU against source length for every scorer of this direction, from the studies stored with the models (Bahdanau et al. 2014, Fig. 2)</source>
        <translation>此方向每种打分函数的 BLEU 与源句长度关系，来自随模型存储的研究（Bahdanau 等 2014 年论文图 2）</translation>
    </message>
    <message>
        <source>Beam tree</source>
        <translation>束搜索树</translation>
    </message>
    <message>
        <source>The beam search of this sentence as a tree, growing live (beam 2 or more)</source>
        <translation>以实时生长的树展示这个句子的束搜索（束宽 2 或更大）</translation>
    </message>
    <message>
        <source>Layers…</source>
        <translation>层…</translation>
    </message>
    <message>
        <source>Compare scorers</source>
        <translation>比较打分函数</translation>
    </message>
    <message>
        <source>Decode this sentence with every scorer of this direction at once, side by side (the Compare tab)</source>
        <translation>用此方向的所有打分函数同时解码这个句子，并排比较（“比较”标签页）</translation>
    </message>
    <message>
        <source>Open a recorded session…</source>
        <translation>打开录制的会话…</translation>
    </message>
    <message>
        <source>Type a sentence and press Enter</source>
        <translation>输入一个句子，然后按 Enter</translation>
    </message>
    <message>
        <source>Translate</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>The source as the model sees it: one tint per sub-word token</source>
        <translation>模型眼中的源句：每个子词词元一种底色</translation>
    </message>
    <message>
        <source>The translation, token by token: hover a token for its alternatives</source>
        <translation>逐词元的译文：悬停在词元上可查看备选</translation>
    </message>
    <message>
        <source>Source tokens</source>
        <translation>源词元</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Train the dates task…</source>
        <translation>训练日期任务…</translation>
    </message>
</context>
<context>
    <name>TransportBar</name>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause the decoding after the current step</source>
        <translation>在当前步之后暂停解码</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Decode exactly one more token (pauses first)</source>
        <translation>再解码一个词元（先暂停）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>End this decoding here (Esc)</source>
        <translation>在此结束本次解码 (Esc)</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
</context>
<context>
    <name>UnloadedModels</name>
    <message>
        <source>⚠ 1 model not loaded</source>
        <translation>⚠ 1 个模型未加载</translation>
    </message>
    <message>
        <source>⚠ %1 models not loaded</source>
        <translation>⚠ %1 个模型未加载</translation>
    </message>
    <message>
        <source>the folder</source>
        <translation>该文件夹</translation>
    </message>
    <message>
        <source>Model folders that were found but could not be used:</source>
        <translation>找到但无法使用的模型文件夹：</translation>
    </message>
</context>
<context>
    <name>UnseenWords</name>
    <message>
        <source>never seen in training: </source>
        <translation>训练中从未见过：</translation>
    </message>
    <message>
        <source>Words of this input that never occur in the sentences this model was trained on (recorded with the model): it has never seen them, so what it makes of them is a guess. Their source tokens are underlined.</source>
        <translation>此输入中从未出现在该模型训练句子里的词（随模型记录）：模型从未见过它们，对它们的处理只是猜测。它们的源词元带有下划线。</translation>
    </message>
    <message>
        <source>characters never seen: %1 (spelled as bytes)</source>
        <translation>从未见过的字：%1（按字节拼写）</translation>
    </message>
    <message>
        <source>Unseen words are not checked: %1</source>
        <translation>未检查未见过的词：%1</translation>
    </message>
</context>
<context>
    <name>WhatIf</name>
    <message>
        <source>the first %1 tokens are given (an alternative picked)</source>
        <translation>前 %1 个词元已给定（选了一个备选）</translation>
    </message>
    <message>
        <source>the output must start with “%1”</source>
        <translation>输出必须以“%1”开头</translation>
    </message>
    <message>
        <source>step %1 attends to %2</source>
        <translation>第 %1 步关注 %2</translation>
    </message>
    <message>
        <source>What-if: %1.</source>
        <translation>假如：%1。</translation>
    </message>
</context>
<context>
    <name>WhatIfBar</name>
    <message>
        <source>Set attention by hand: click a heatmap cell to put all of that step&apos;s attention on its source token, shift-click to share it with more tokens; the model continues from that step</source>
        <translation>手动设置注意力：点击热图的一个格子，把该步的全部注意力放到对应的源词元上，按住 Shift 点击可与更多词元分享；模型从该步继续解码</translation>
    </message>
    <message>
        <source>This scorer has no attention to set: every step reads the same fixed context C</source>
        <translation>该打分函数没有可设置的注意力：每一步都读取同一个固定语义编码 C</translation>
    </message>
    <message>
        <source>What if… type how the output should start and press Enter: the model continues from it (or click a candidate in the step inspector)</source>
        <translation>假如…输入译文应有的开头并按 Enter：模型从这里继续（或在单步检查器中点击一个候选）</translation>
    </message>
    <message>
        <source>Set attention</source>
        <translation>设置注意力</translation>
    </message>
    <message>
        <source>Undo what-if</source>
        <translation>撤销假如</translation>
    </message>
    <message>
        <source>Back to the model&apos;s own decode of this sentence</source>
        <translation>回到模型自己对这个句子的解码</translation>
    </message>
</context>
<context>
    <name>WhatIfSteering</name>
    <message>
        <source>What-if not applied: %1.</source>
        <translation>假如未生效：%1。</translation>
    </message>
</context>
</TS>
