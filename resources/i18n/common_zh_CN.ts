<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Examples</name>
    <message>
        <source>Short sentences</source>
        <translation>短句</translation>
    </message>
    <message>
        <source>Long sentences</source>
        <translation>长句</translation>
    </message>
    <message>
        <source>Several sentences (one input)</source>
        <translation>多个句子（一次输入）</translation>
    </message>
    <message>
        <source>No examples for this direction</source>
        <translation>此方向没有示例</translation>
    </message>
</context>
<context>
    <name>Languages</name>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <source>Dates</source>
        <translation>日期</translation>
    </message>
</context>
<context>
    <name>PastBadge</name>
    <message>
        <source>Back to the final model</source>
        <translation>回到最终模型</translation>
    </message>
    <message>
        <source>Leave the earlier weights: Translate and Compare decode with the models they used before</source>
        <translation>离开早先的权重：“翻译”和“对比”改回用之前的模型解码</translation>
    </message>
    <message>
        <source>Travelled back: {label} (read-only)</source>
        <translation>已回到过去：{label}（只读）</translation>
    </message>
</context>
<context>
    <name>PastModel</name>
    <message>
        <source> — the nearest kept to step %1</source>
        <translation> — 最接近第 %1 步的已保存权重</translation>
    </message>
    <message>
        <source>model at step %1</source>
        <translation>第 %1 步的模型</translation>
    </message>
    <message>
        <source>saved model (step %1)</source>
        <translation>已保存的模型（第 %1 步）</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%2 的%1</translation>
    </message>
    <message>
        <source>the run has no saved model and no weight snapshot yet (snapshots are kept when it trains with &apos;keep snapshots&apos; above 0)</source>
        <translation>该运行还没有保存的模型，也没有权重快照（“保留快照”大于 0 时训练才会保留快照）</translation>
    </message>
</context>
</TS>
