<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>LessonDock</name>
    <message>
        <source>Lesson</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>A guided path through attention, chapter by chapter, driving the app</source>
        <translation>一条循序渐进的注意力学习路线，逐章讲解并操作本应用</translation>
    </message>
</context>
<context>
    <name>LessonHost</name>
    <message>
        <source>the model %1 is not installed</source>
        <translation>模型 %1 没有安装</translation>
    </message>
    <message>
        <source>the Translate tab did not translate: %1</source>
        <translation>“翻译”页没有进行翻译：%1</translation>
    </message>
    <message>
        <source>no model in use</source>
        <translation>没有正在使用的模型</translation>
    </message>
    <message>
        <source>the output has no word “%1” (it reads: %2)</source>
        <translation>输出中没有词“%1”（输出为：%2）</translation>
    </message>
    <message>
        <source>the Compare tab offers no shared target yet (compare a sentence first)</source>
        <translation>“比较”页还没有提供共同目标（请先比较一个句子）</translation>
    </message>
    <message>
        <source>this model has no attention to set</source>
        <translation>这个模型没有可以设置的注意力</translation>
    </message>
    <message>
        <source>the Train tab is not ready</source>
        <translation>“训练”页还没有准备好</translation>
    </message>
    <message>
        <source>the Train tab offers no %1 corpus</source>
        <translation>“训练”页没有 %1 语料</translation>
    </message>
    <message>
        <source>no widget %1 on screen</source>
        <translation>屏幕上没有部件 %1</translation>
    </message>
    <message>
        <source>unknown action %1</source>
        <translation>未知的操作 %1</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>Show me</source>
        <translation>演示</translation>
    </message>
    <message>
        <source>Put the app in the state this chapter talks about</source>
        <translation>把应用切换到本章所讲的状态</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>动手试试</translation>
    </message>
    <message>
        <source>Reset chapter</source>
        <translation>重置本章</translation>
    </message>
    <message>
        <source>Forget this chapter&apos;s Try it progress and start it again</source>
        <translation>清除本章“动手试试”的进度，重新开始</translation>
    </message>
    <message>
        <source>This chapter cannot be used: %1 (%2/%3.md)</source>
        <translation>本章无法使用：%1（%2/%3.md）</translation>
    </message>
    <message>
        <source>This chapter needs the model %1, which is not installed.</source>
        <translation>本章需要模型 %1，但它没有安装。</translation>
    </message>
    <message>
        <source>Showing…</source>
        <translation>正在演示…</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>正在载入模型…</translation>
    </message>
    <message>
        <source>Translating…</source>
        <translation>正在翻译…</translation>
    </message>
    <message>
        <source>Decoding with every scorer…</source>
        <translation>正在用每个评分函数解码…</translation>
    </message>
    <message>
        <source>Shown. Now read the chapter and try it.</source>
        <translation>演示完毕。现在阅读本章，然后动手试试。</translation>
    </message>
    <message>
        <source>Show me stopped: %1</source>
        <translation>演示中止：%1</translation>
    </message>
    <message>
        <source>Done! On to the next chapter.</source>
        <translation>完成！继续下一章。</translation>
    </message>
    <message>
        <source>Nothing to try in this chapter.</source>
        <translation>本章没有需要动手的任务。</translation>
    </message>
</context>
<context>
    <name>ShowMe</name>
    <message>
        <source>an action did not take effect within %1 s</source>
        <translation>有一个操作在 %1 秒内没有生效</translation>
    </message>
</context>
</TS>
